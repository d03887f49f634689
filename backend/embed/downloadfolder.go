package embed

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/footnote-app/footnote/backend/atomicfile"
)

// The model folder is a setting the user can point anywhere, and a download
// replaces the whole folder. So Download fills only a folder that is
// missing, empty, or Footnote's own — one carrying ownerMarkerFile, or a
// complete earlier download (its manifest and exactly the files it lists) —
// and refuses anything else before touching it.

// ownerMarkerFile marks a folder Download created.
const ownerMarkerFile = ".footnote-model"

const ownerMarkerText = "Footnote downloaded the model in this folder. Downloading the model again replaces everything in it.\n"

// ErrFolderInUse means the model folder holds files that are not a model
// Footnote downloaded, so Download refused to replace it.
var ErrFolderInUse = errors.New("the model folder holds other files")

// FolderInUseError names the refused folder and some of what it holds.
type FolderInUseError struct {
	Dir      string
	Examples []string // a few entry names; folders end in "/"
	More     int      // entries not listed
}

func (e *FolderInUseError) Error() string {
	list := strings.Join(e.Examples, ", ")
	if e.More > 0 {
		list += fmt.Sprintf(" and %d more", e.More)
	}
	return fmt.Sprintf("download model: %s holds other files (%s) and no model Footnote downloaded, so downloading there would replace them; nothing was changed. Choose an empty or new folder for the model, or move those files elsewhere", e.Dir, list)
}

// Is makes errors.Is(err, ErrFolderInUse) true.
func (e *FolderInUseError) Is(target error) bool { return target == ErrFolderInUse }

// desktopMetadata are files a desktop drops into any folder it shows; they
// alone do not make a folder the user's.
var desktopMetadata = map[string]bool{".DS_Store": true, "Thumbs.db": true, "desktop.ini": true}

// swapDirs exchanges two folders in one step; tests replace it to take the
// two-rename path of file systems that cannot.
var swapDirs = atomicfile.Swap

// replaceStepHook, when set (only by tests), is called at each step of
// putting a finished download in place, so a test can kill the process
// exactly there.
var replaceStepHook func(step string)

func replaceStep(s string) {
	if replaceStepHook != nil {
		replaceStepHook(s)
	}
}

// downloadTarget returns the folder Download fills for dir: dir itself, or
// the folder a link at dir points to (the link stays a link).
func downloadTarget(dir string) (string, error) {
	st, err := os.Lstat(dir)
	if err != nil || st.Mode()&fs.ModeSymlink == 0 {
		return dir, nil
	}
	target, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", fmt.Errorf("download model: %s is a link that cannot be followed (%w); choose an existing or new folder for the model", dir, err)
	}
	return target, nil
}

// checkReplaceable returns nil if the entry at path may be replaced by a
// download: missing, an empty folder or a folder Footnote owns. Errors name
// the folder as shownAs (path may be where it was moved aside).
func checkReplaceable(path, shownAs string) error {
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("download model: %w", err)
	}
	if !st.IsDir() {
		return fmt.Errorf("download model: %s is not a folder; choose an empty or new folder for the model", shownAs)
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return fmt.Errorf("download model: read %s: %w", shownAs, err)
	}
	var others []fs.DirEntry
	for _, e := range entries {
		if !desktopMetadata[e.Name()] {
			others = append(others, e)
		}
	}
	if len(others) == 0 || ownedByFootnote(path, others) {
		return nil
	}
	refused := &FolderInUseError{Dir: shownAs}
	for i, e := range others {
		if i == 3 {
			refused.More = len(others) - i
			break
		}
		name := e.Name()
		if e.IsDir() {
			name += "/"
		}
		refused.Examples = append(refused.Examples, name)
	}
	return refused
}

// ownedByFootnote reports whether a folder's entries are Footnote's: the
// ownership marker is there, or they are exactly a complete download whose
// manifest predates the marker.
func ownedByFootnote(dir string, entries []fs.DirEntry) bool {
	present := map[string]bool{}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		if e.Name() == ownerMarkerFile {
			return true
		}
		present[e.Name()] = true
	}
	if !present[ManifestFile] || len(present) != len(entries) {
		return false
	}
	data, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	var m Manifest
	if err != nil || json.Unmarshal(data, &m) != nil || m.Source == "" || len(m.Files) == 0 {
		return false
	}
	listed := map[string]bool{ManifestFile: true}
	for _, f := range m.Files {
		if !present[f.Name] {
			return false // incomplete, or not what the manifest describes
		}
		listed[f.Name] = true
	}
	return len(listed) == len(present)
}

// replaceDir puts the finished, flushed download staging at dir. An existing
// folder is checked again (it may have filled while the download ran) and
// exchanged with staging in one step where the file system can, so dir
// always holds a complete model; the previous one is removed only after.
func replaceDir(staging, dir string) error {
	if err := os.Chmod(staging, 0o755); err != nil {
		return fmt.Errorf("download model: %w", err)
	}
	if err := atomicfile.SyncDir(staging); err != nil {
		return fmt.Errorf("download model: %w", err)
	}
	parent := filepath.Dir(dir)
	replaceStep("staged")
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		if err := os.Rename(staging, dir); err != nil {
			return fmt.Errorf("download model: move into %s: %w", dir, err)
		}
		return syncParent(parent)
	}
	if err := checkReplaceable(dir, dir); err != nil {
		return err
	}

	old := staging // after the swap, staging holds the previous folder
	switch err := swapDirs(staging, dir); {
	case errors.Is(err, atomicfile.ErrSwapUnsupported):
		// Two renames: dir is missing for the moment between them.
		old = staging + ".old"
		if err := os.Rename(dir, old); err != nil {
			return fmt.Errorf("download model: move old %s aside: %w", dir, err)
		}
		replaceStep("moved aside")
		if err := checkReplaceable(old, dir); err != nil {
			return errors.Join(err, os.Rename(old, dir))
		}
		if err := os.Rename(staging, dir); err != nil {
			return fmt.Errorf("download model: move into %s: %w", dir, errors.Join(err, os.Rename(old, dir)))
		}
	case err != nil:
		return fmt.Errorf("download model: put the new model in %s: %w", dir, err)
	default:
		// What was swapped out is what gets deleted: check it, in case the
		// folder filled between the check above and the swap.
		if err := checkReplaceable(old, dir); err != nil {
			return errors.Join(err, swapDirs(staging, dir))
		}
	}
	if err := syncParent(parent); err != nil {
		return err
	}
	replaceStep("swapped")
	if err := os.RemoveAll(old); err != nil {
		return fmt.Errorf("download model: remove previous model at %s: %w", old, err)
	}
	return nil
}

func syncParent(parent string) error {
	if err := atomicfile.SyncDir(parent); err != nil {
		return fmt.Errorf("download model: %w", err)
	}
	return nil
}
