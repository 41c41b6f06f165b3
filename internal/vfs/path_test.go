package vfs

import (
	"path"
	"strings"
	"testing"
)

// FuzzCleanPath checks the path cleaner's invariants on arbitrary input: the
// result is absolute and clean, never climbs above "/", is idempotent, agrees
// with path.Clean, and respects the length limits.
func FuzzCleanPath(f *testing.F) {
	for _, s := range []string{"", "/", "a", "/a/b/../c", "../../x", "a//b/./c/", "/..", "x/\x00/y", strings.Repeat("a/", 3000), strings.Repeat("b", 300)} {
		f.Add(s)
	}
	fs := &FS{core: &core{opts: Options{}.withDefaults()}}
	f.Fuzz(func(t *testing.T, name string) {
		p, dirOnly, err := fs.cleanPath("op", name)
		if err != nil {
			if Errno(err) == 0 {
				t.Fatalf("error without errno: %v", err)
			}
			return
		}
		if !strings.HasPrefix(p, "/") || strings.Contains(p, "//") || (p != "/" && strings.HasSuffix(p, "/")) {
			t.Fatalf("cleanPath(%q) = %q: not clean", name, p)
		}
		for _, c := range strings.Split(p[1:], "/") {
			if c == "." || c == ".." {
				t.Fatalf("cleanPath(%q) = %q: has %q", name, p, c)
			}
			if len(c) > fs.opts.MaxNameLen {
				t.Fatalf("cleanPath(%q): component of %d bytes accepted", name, len(c))
			}
		}
		if want := path.Clean("/" + name); p != want {
			t.Fatalf("cleanPath(%q) = %q, path.Clean gives %q", name, p, want)
		}
		if dirOnly != (len(name) > 1 && strings.HasSuffix(name, "/")) {
			t.Fatalf("cleanPath(%q): dirOnly %v", name, dirOnly)
		}
		if p2, _, err := fs.cleanPath("op", p); err != nil || p2 != p {
			t.Fatalf("not idempotent: %q -> %q (%v)", p, p2, err)
		}
		if Clean(name) != p {
			t.Fatalf("Clean(%q) = %q, cleanPath gives %q", name, Clean(name), p)
		}
	})
}
