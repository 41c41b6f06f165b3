package mediatype_test

import (
	"bytes"
	"testing"

	"github.com/desk-dev/desk/internal/mediatype"
)

func TestOf(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	for _, tc := range []struct {
		name string
		head []byte
		want string
	}{
		{"a.txt", nil, "text/plain; charset=utf-8"},
		{"README.MD", nil, "text/markdown; charset=utf-8"},
		{"/x/report.pdf", []byte("not a pdf"), "application/pdf"}, // the name wins
		{"data.json", nil, "application/json"},
		{"noext", nil, ""},
		{"noext", []byte{}, "text/plain; charset=utf-8"},
		{"noext", []byte("hello\n"), "text/plain; charset=utf-8"},
		{"image", png, "image/png"},
		{"blob.bin", []byte{0, 1, 2, 3}, mediatype.Unknown},
		{"page", []byte("<!DOCTYPE html><html>"), "text/html; charset=utf-8"},
		{"big", append(bytes.Repeat([]byte("a"), mediatype.SniffLen), 0), "text/plain; charset=utf-8"}, // past SniffLen: not seen
	} {
		if got := mediatype.Of(tc.name, tc.head); got != tc.want {
			t.Errorf("Of(%q, %q) = %q, want %q", tc.name, tc.head, got, tc.want)
		}
	}
}
