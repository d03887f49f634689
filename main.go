// Footnote desktop app: a Wails window hosting the web UI in frontend/,
// bound to the Go methods in app/.
package main

import (
	"context"
	"embed"
	"fmt"
	"log"
	"os"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"

	"github.com/footnote-app/footnote/app"
	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/engine"
	"github.com/footnote-app/footnote/backend/version"
)

//go:embed all:frontend/dist
var assets embed.FS

// desktopUsage answers `footnote-desktop --help` in a terminal.
var desktopUsage = `Usage: footnote-desktop [--version]

Opens Footnote's window: add folders, ask questions about them, and read
every answer with its citations. The command-line tool is footnote
(footnote --help).

Environment:
` + config.EnvUsage()

func main() {
	engine.RunExtractorIfChild() // first: a parser child must not start a window
	// --version and --help answer in the terminal without opening a window.
	if len(os.Args) == 2 {
		switch os.Args[1] {
		case "--version":
			fmt.Println("footnote-desktop", version.Describe())
			return
		case "--help", "-h":
			fmt.Print(desktopUsage)
			return
		}
	}
	engine.LimitProcessMemory()
	cfg, err := config.Load()
	if err != nil {
		log.Fatalf("footnote: %v", err)
	}
	en, err := engine.New(cfg)
	if err != nil {
		log.Fatalf("footnote: %v", err)
	}
	a := app.New(en, nil, nil)
	// FOOTNOTE_LIBRARY names folders (separated like PATH) to index at start;
	// `make run` uses it for the sample library.
	if lib := config.Library(); len(lib) > 0 {
		app.IndexOnStart(a, lib)
	}
	err = wails.Run(&options.App{
		Title:            "Footnote",
		Width:            1280,
		Height:           820,
		MinWidth:         1024,
		MinHeight:        700,
		AssetServer:      &assetserver.Options{Assets: assets},
		BackgroundColour: &options.RGBA{R: 250, G: 250, B: 248, A: 1},
		OnStartup:        func(ctx context.Context) { app.Startup(a, ctx) },
		OnShutdown:       func(context.Context) { app.Shutdown(a) },
		Bind:             []interface{}{a},
		ErrorFormatter:   app.FormatError, // errors the UI acts on carry a code
		Logger:           app.WailsLogger(),
	})
	if err != nil {
		log.Fatalf("footnote: %v", err)
	}
}
