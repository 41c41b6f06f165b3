package main

import (
	"bytes"
	"context"
	"image/png"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/examples/internal/exampletest"
)

// TestImage runs the example against a real desk serve: the PNG it saved
// (the read tool's image content) decodes, shows one bar per file, biggest
// first, and the share link serves the same bytes.
func TestImage(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // a hang guard
	defer cancel()
	srv := exampletest.Start(t)
	out := filepath.Join(t.TempDir(), "chart.png")
	var log bytes.Buffer
	if err := run(ctx, srv.Client, "image-example", out, &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	saved, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(saved))
	if err != nil {
		t.Fatalf("the saved chart does not decode: %v", err)
	}
	// Five seeded files and chart.mjs: six bars of 18 px with 6 px gaps
	// between 20 px margins.
	b := img.Bounds()
	if b.Dx() != 640 || b.Dy() != 2*20+6*(18+6) {
		t.Fatalf("chart is %v", b)
	}
	// The biggest file (src/main.go) has the full-width bar; the next
	// (chart.mjs, about 3.6 kB, or src/util.go) is shorter.
	widths := make([]int, 6)
	for i := range widths {
		y := 20 + i*24 + 3 + 9
		for x := 20; x < 640; x++ {
			if r, g, bb, _ := img.At(x, y).RGBA(); r == 0xffff && g == 0xffff && bb == 0xffff {
				break
			}
			widths[i]++
		}
	}
	if widths[0] != 600 || !(widths[1] < widths[0] && widths[5] < widths[1] && widths[5] > 0) {
		t.Errorf("bar widths %v: want 600 first, then decreasing", widths)
	}
	if !strings.Contains(log.String(), "6100  src/main.go") {
		t.Errorf("the bars printed:\n%s", log.String())
	}
	link := ""
	for _, line := range strings.Split(log.String(), "\n") {
		if u, ok := strings.CutPrefix(line, "share link: "); ok {
			link = u
		}
	}
	resp, err := http.Get(link)
	if err != nil {
		t.Fatalf("share link %q: %v", link, err)
	}
	defer resp.Body.Close()
	shared, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/png" || !bytes.Equal(shared, saved) {
		t.Errorf("share link: %d %s, %d bytes, the saved PNG's: %v", resp.StatusCode, resp.Header.Get("Content-Type"), len(shared), bytes.Equal(shared, saved))
	}
}
