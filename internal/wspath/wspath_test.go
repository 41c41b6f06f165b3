package wspath_test

import (
	"testing"

	"github.com/desk-dev/desk/internal/wspath"
)

func TestResolve(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "/workspace"},
		{".", "/workspace"},
		{"a.txt", "/workspace/a.txt"},
		{"src/../b", "/workspace/b"},
		{"d/", "/workspace/d"},
		{"..", "/"},
		{"../etc/hosts", "/etc/hosts"},
		{"/", "/"},
		{"/etc//hosts", "/etc/hosts"},
		{"/workspace/x/", "/workspace/x"},
		{"/../x", "/x"},
	} {
		if got := wspath.Resolve(tc.in); got != tc.want {
			t.Errorf("Resolve(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestRel(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"/workspace", ""},
		{"/workspace/a", "a"},
		{"/workspace/a/b", "a/b"},
		{"/workspacex", "/workspacex"},
		{"/etc/hosts", "/etc/hosts"},
		{"/", "/"},
	} {
		got := wspath.Rel(tc.in)
		if got != tc.want {
			t.Errorf("Rel(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if back := wspath.Resolve(got); back != tc.in {
			t.Errorf("Resolve(Rel(%q)) = %q", tc.in, back)
		}
	}
}
