package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/examples/internal/exampletest"
	"github.com/desk-dev/desk/internal/testenv"
)

// TestPDF runs the example against a real desk serve, then reads the PDF's
// text back with pdftotext and fetches the share link.
func TestPDF(t *testing.T) {
	for _, tool := range []string{"pandoc", "pdflatex", "pdftotext"} {
		if _, err := exec.LookPath(tool); err != nil {
			testenv.Need(t, testenv.Sandbox, errors.New(tool+" is not installed (make examples-setup)"))
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a hang guard
	defer cancel()
	srv := exampletest.Start(t)
	srv.NeedSandbox(t, ctx, "pdf-example")
	out := filepath.Join(t.TempDir(), "report.pdf")
	var log bytes.Buffer
	if err := run(ctx, srv.Client, "pdf-example", out, &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	text, err := exec.Command("pdftotext", out, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	for _, want := range []string{"Quarterly notes", "Summary", "The workspace kept every step", "Q2", "137"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("the PDF's text lacks %q:\n%s", want, text)
		}
	}
	// The share link serves the same bytes, to anyone, without a token.
	link := ""
	for _, line := range strings.Split(log.String(), "\n") {
		if u, ok := strings.CutPrefix(line, "share link: "); ok {
			link = u
		}
	}
	if !strings.HasPrefix(link, srv.URL+"/s/") {
		t.Fatalf("no share link of the server in the output:\n%s", log.String())
	}
	resp, err := http.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	shared, _ := io.ReadAll(resp.Body)
	saved, _ := os.ReadFile(out)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/pdf" || !bytes.Equal(shared, saved) {
		t.Errorf("share link: %d %s, %d bytes, equal to the saved PDF: %v", resp.StatusCode, resp.Header.Get("Content-Type"), len(shared), bytes.Equal(shared, saved))
	}
}
