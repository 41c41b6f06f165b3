package sandbox

import (
	"archive/zip"
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/desk-dev/desk/internal/run"
)

// testWheel is a pure-Python wheel built here (a wheel is a zip of the
// package and its dist-info): package deskhello, whose hi() says hello, and
// a console script deskhello-py.
func testWheel(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	files := []struct{ name, body string }{
		{"deskhello/__init__.py", "def hi():\n    return 'hello from a wheel'\n\ndef main():\n    print(hi())\n"},
		{"deskhello-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: deskhello\nVersion: 1.0\n"},
		{"deskhello-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\nGenerator: desk-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"},
		{"deskhello-1.0.dist-info/entry_points.txt", "[console_scripts]\ndeskhello-py = deskhello:main\n"},
	}
	var record strings.Builder
	for _, f := range files {
		w, err := z.Create(f.name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(f.body))
		record.WriteString(f.name + ",,\n")
	}
	record.WriteString("deskhello-1.0.dist-info/RECORD,,\n")
	w, err := z.Create("deskhello-1.0.dist-info/RECORD")
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte(record.String()))
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestHome_Persists: the sandbox's home is the store's /home/agent, so a
// dotfile, a pip install --user of a local wheel, an npm install -g of a
// local package and npm's cache survive a sandbox restart, and the store
// (what every other backend reads) holds them at the same path.
func TestHome_Persists(t *testing.T) {
	t.Parallel()
	tool(t, "pip3")
	tool(t, "npm")
	e := newFUSEEnv(t, Options{})
	c := context.Background()
	if err := e.fs.MkdirAll(c, "/workspace", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := e.fs.WriteFile(c, "/workspace/deskhello-1.0-py3-none-any.whl", testWheel(t), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := e.ok("echo $HOME; getent passwd root | cut -d: -f6; stat -c %a $HOME"); out != "/home/agent\n/home/agent\n700\n" {
		t.Fatalf("home: %q", out)
	}
	e.ok(`echo 'export DESK_GREETING=from-bashrc' >> ~/.bashrc && mkdir -p ~/.config/app && echo 'color = blue' > ~/.config/app/conf`)
	res := e.run("pip3 install --user --no-index --no-cache-dir /workspace/deskhello-1.0-py3-none-any.whl", run.ExecOptions{})
	if res.ExitCode != 0 {
		t.Fatalf("pip install --user: exit %d\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	res = e.run(`mkdir -p /tmp/npmpkg/bin && cd /tmp/npmpkg &&
printf '{"name":"desk-npm-hello","version":"1.0.0","bin":{"desk-npm-hello":"bin/hello.js"}}' > package.json &&
printf '#!/usr/bin/env node\nconsole.log("hello from npm")\n' > bin/hello.js && chmod +x bin/hello.js &&
npm pack --silent >/dev/null && npm install -g --offline --no-audit --no-fund ./desk-npm-hello-1.0.0.tgz`, run.ExecOptions{})
	if res.ExitCode != 0 {
		t.Fatalf("npm install -g: exit %d\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	first := e.box().id
	if err := e.b.Stop(ctx(t), "ws"); err != nil {
		t.Fatal(err)
	}
	out := e.ok(`source ~/.bashrc; echo $DESK_GREETING; cat ~/.config/app/conf; python3 -c 'import deskhello; print(deskhello.hi())'; deskhello-py; desk-npm-hello; ls /tmp | wc -l`)
	if want := "from-bashrc\ncolor = blue\nhello from a wheel\nhello from a wheel\nhello from npm\n0\n"; out != want {
		t.Errorf("after the restart: %q, want %q", out, want)
	}
	if x := e.box(); x == nil || x.id == first {
		t.Fatalf("the sandbox was not restarted")
	}
	// In the store, at the same paths, for the other backends.
	for name, want := range map[string]string{
		"/home/agent/.config/app/conf": "color = blue\n",
		"/home/agent/.bashrc":          "export DESK_GREETING=from-bashrc\n",
	} {
		if b, err := e.fs.ReadFile(c, name); err != nil || string(b) != want {
			t.Errorf("store %s: %q, %v", name, b, err)
		}
	}
	for _, name := range []string{"/home/agent/.local/bin/deskhello-py", "/home/agent/.local/bin/desk-npm-hello"} {
		if _, err := e.fs.Lstat(c, name); err != nil {
			t.Errorf("store %s: %v", name, err)
		}
	}
	if ents, err := e.fs.ReadDir(c, "/home/agent/.local/lib"); err != nil || len(ents) == 0 {
		t.Errorf("store /home/agent/.local/lib: %v, %v", ents, err)
	}
}
