// Package scantest writes PDFs with scanned pages for tests: pages that
// are an image of text with no text layer, as a scanner makes them, next to
// ordinary text pages.
package scantest

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"

	"github.com/go-pdf/fpdf"
	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// Page is one page: typed Text lines, or Scan lines drawn as an image. A
// page with neither is blank.
type Page struct {
	Text []string
	Scan []string
}

// PDF writes pages as an A4 PDF.
func PDF(pages []Page) ([]byte, error) {
	p := fpdf.New("P", "mm", "A4", "")
	p.SetFont("Helvetica", "", 11)
	for i, pg := range pages {
		p.AddPage()
		for j, line := range pg.Text {
			p.Text(20, 20+float64(j)*6, line)
		}
		if pg.Scan == nil {
			continue
		}
		img, err := scanOf(pg.Scan)
		if err != nil {
			return nil, err
		}
		name := fmt.Sprintf("scan%d", i)
		opts := fpdf.ImageOptions{ImageType: "PNG"}
		p.RegisterImageOptionsReader(name, opts, bytes.NewReader(img))
		p.ImageOptions(name, 10, 10, 190, 0, false, opts, 0, "")
	}
	var buf bytes.Buffer
	if err := p.Output(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// scanOf renders lines black on white, each glyph as large as 12 pt type
// scanned at 300 dpi, as a PNG.
func scanOf(lines []string) ([]byte, error) {
	f, err := opentype.Parse(goregular.TTF)
	if err != nil {
		return nil, err
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: 50, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		return nil, err
	}
	defer face.Close()
	img := image.NewGray(image.Rect(0, 0, 2400, 160+len(lines)*80))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	d := font.Drawer{Dst: img, Src: image.NewUniform(color.Black), Face: face}
	for i, line := range lines {
		d.Dot = fixed.P(80, 120+i*80)
		d.DrawString(line)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
