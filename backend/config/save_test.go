package config

import (
	"fmt"
	"os"
	"sync"
	"testing"
)

// TestSaveConcurrent saves settings from two goroutines at once (the app's
// Settings page and a background save can overlap): every save succeeds,
// settings.json always holds one complete version, and no temporary file
// is left. With a fixed temporary name the savers overwrote each other's
// file mid-write and one rename found nothing to move.
func TestSaveConcurrent(t *testing.T) {
	home := t.TempDir()
	t.Setenv(EnvHome, home)
	base, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	const rounds = 200
	var wg sync.WaitGroup
	errs := make(chan error, 2*rounds)
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds {
				c := base
				c.Settings.LLMModel = fmt.Sprintf("model-%d-%d", w, i)
				if err := c.Save(); err != nil {
					errs <- err
				}
			}
		}()
	}
	readErrs := make(chan error, 1)
	stop := make(chan struct{})
	go func() {
		defer close(readErrs)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := Load(); err != nil {
				readErrs <- err
				return
			}
		}
	}()
	wg.Wait()
	close(stop)
	close(errs)
	for err := range errs {
		t.Errorf("Save: %v", err)
	}
	for err := range readErrs {
		t.Errorf("Load during saves: %v", err)
	}
	got, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if got.Settings.LLMModel != fmt.Sprintf("model-0-%d", rounds-1) && got.Settings.LLMModel != fmt.Sprintf("model-1-%d", rounds-1) {
		t.Errorf("settings.json holds llm_model %q, want one of the last saves", got.Settings.LLMModel)
	}
	entries, err := os.ReadDir(home)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "settings.json" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("data folder holds %v, want only settings.json", names)
	}
}
