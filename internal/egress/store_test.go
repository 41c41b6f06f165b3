package egress

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStore(t *testing.T) {
	data := t.TempDir()
	s := OpenStore(data)
	if _, ok, err := s.Policy("w"); ok || err != nil {
		t.Fatalf("no policy yet: %v %v", ok, err)
	}
	if err := s.SetPolicy("w", Policy{Mode: "allow", Rules: []Rule{{Host: "A.com"}}}); err != nil {
		t.Fatal(err)
	}
	if p, ok, err := s.Policy("w"); !ok || err != nil || p.String() != "allow a.com" {
		t.Fatalf("policy: %v %v %v", p, ok, err)
	}
	if err := s.SetPolicy("w", Policy{Mode: "some"}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("bad policy stored: %v", err)
	}
	if _, _, err := s.Policy("../x"); !errors.Is(err, ErrInvalid) {
		t.Fatalf("bad name: %v", err)
	}
	info, err := s.SetSecret("w", "TOKEN", "v4lue", []string{"API.example.com", "*.example.org"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(info.Placeholder, "desk-secret-TOKEN-") || info.Hosts[0] != "api.example.com" {
		t.Fatalf("info %+v", info)
	}
	f := filepath.Join(data, "egress", "w", "secrets", "TOKEN.json")
	for p, mode := range map[string]os.FileMode{f: 0o600, filepath.Dir(f): 0o700 | os.ModeDir, filepath.Join(data, "egress", "w"): 0o700 | os.ModeDir} {
		if fi, err := os.Stat(p); err != nil || fi.Mode() != mode {
			t.Errorf("%s: %v %v, want %v", p, fi.Mode(), err, mode)
		}
	}
	list, err := s.Secrets("w")
	if err != nil || len(list) != 1 || list[0].Name != "TOKEN" {
		t.Fatalf("list %+v %v", list, err)
	}
	sec, env, err := s.Bound("w")
	if err != nil || len(sec) != 1 || sec[0].Value != "v4lue" || env["TOKEN"] != info.Placeholder {
		t.Fatalf("bound %+v %v %v", sec, env, err)
	}
	for _, bad := range [][3]string{{"1X", "v", "a.com"}, {"X", "", "a.com"}, {"X", "a\nb", "a.com"}, {"X", "v", ""}, {"X", "v", "*"}} {
		hosts := []string{bad[2]}
		if bad[2] == "" {
			hosts = nil
		}
		if _, err := s.SetSecret("w", bad[0], bad[1], hosts); !errors.Is(err, ErrInvalid) {
			t.Errorf("SetSecret(%q): %v", bad, err)
		} else if bad[1] != "" && strings.Contains(err.Error(), bad[1]) && bad[1] != "v" {
			t.Errorf("the error holds the value: %v", err)
		}
	}
	if err := s.DeleteSecret("w", "TOKEN"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteSecret("w", "TOKEN"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second delete: %v", err)
	}
	if err := s.RemoveWorkspace("w"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(data, "egress", "w")); !os.IsNotExist(err) {
		t.Fatalf("removed: %v", err)
	}
}

func TestWithLayer(t *testing.T) {
	ctx := WithLayer(context.Background(), Layer{Source: "a"})
	c1 := WithLayer(ctx, Layer{Source: "b"})
	c2 := WithLayer(ctx, Layer{Source: "c"})
	if l := LayersFrom(c1); len(l) != 2 || l[1].Source != "b" {
		t.Fatalf("c1 %v", l)
	}
	if l := LayersFrom(c2); len(l) != 2 || l[1].Source != "c" {
		t.Fatalf("c2 %v (a sibling's layer leaked)", l)
	}
}

func TestStore_CA(t *testing.T) {
	s := OpenStore(t.TempDir())
	a, err := s.CA("w")
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.CA("w")
	if err != nil || string(a.PEM()) != string(b.PEM()) {
		t.Fatalf("a second CA: %v", err)
	}
	if strings.Contains(string(a.PEM()), "PRIVATE KEY") {
		t.Fatal("PEM shows the key")
	}
	fi, err := os.Stat(filepath.Join(s.dir, "w", "ca.pem"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("ca.pem: %v %v", fi, err)
	}
	leaf, err := a.leaf("api.example.com")
	if err != nil || leaf.Leaf.DNSNames[0] != "api.example.com" || leaf.Leaf.CheckSignatureFrom(a.cert) != nil {
		t.Fatalf("leaf: %v", err)
	}
}
