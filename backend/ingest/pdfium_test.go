package ingest

import (
	"fmt"
	"slices"
	"testing"
)

// TestPDFiumScanCandidates: a textless page is a scanned page for OCR when
// it draws an image, directly or inside a form; a page that draws only an
// empty form is blank, as the Go reader sees it.
func TestPDFiumScanCandidates(t *testing.T) {
	image := rawObject{dict: "<< /Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceGray /BitsPerComponent 8 /Length 1 >>", stream: []byte{0x80}}
	form := func(content string, resources string) rawObject {
		return rawObject{dict: fmt.Sprintf("<< /Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << %s >> /Length %d >>", resources, len(content)), stream: []byte(content)}
	}
	page := func(name, xobjects string, extra ...rawObject) []byte {
		content := "q 612 0 0 792 0 0 cm /" + name + " Do Q"
		objs := []rawObject{
			{dict: "<< /Type /Catalog /Pages 2 0 R >>"},
			{dict: "<< /Type /Pages /Kids [3 0 R] /Count 1 >>"},
			{dict: "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /XObject << " + xobjects + " >> >> >>"},
			{dict: fmt.Sprintf("<< /Length %d >>", len(content)), stream: []byte(content)},
		}
		return rawPDF(append(objs, extra...), "/Root 1 0 R")
	}
	cases := []struct {
		name    string
		data    []byte
		scanned bool
	}{
		{"image on the page", page("Im1", "/Im1 5 0 R", image), true},
		{"image inside a form", page("Fm1", "/Fm1 5 0 R", form("/Im1 Do", "/XObject << /Im1 6 0 R >>"), image), true},
		{"empty form", page("Fm1", "/Fm1 5 0 R", form("0 0 10 10 re f", "")), false},
	}
	for _, c := range cases {
		ex, err := extractPDFium(c.data, limitsFor(Options{}.WithDefaults()))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := slices.Equal(ex.imagePages, []int{1}); got != c.scanned {
			t.Errorf("%s: image pages %v, want scanned %v", c.name, ex.imagePages, c.scanned)
		}
	}
}
