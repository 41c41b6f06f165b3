package tools

import (
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	e := newEnv(t, Options{MaxWriteBytes: 10})
	got, res := e.ok("write", `{"path":"src/deep/a.txt","content":"hello"}`)
	out := res.Structured.(*WriteOutput)
	if !out.Created || out.Bytes != 5 || out.Path != "/workspace/src/deep/a.txt" || out.Revision == 0 {
		t.Errorf("create: %+v", out)
	}
	if !strings.HasPrefix(got, "created /workspace/src/deep/a.txt (5 bytes), revision ") {
		t.Errorf("create text: %q", got)
	}
	if e.get("/workspace/src/deep/a.txt") != "hello" {
		t.Error("content")
	}
	if fi, _ := e.fs.Stat(e.ctx, "/workspace/src/deep"); fi == nil || !fi.IsDir() || fi.Mode().Perm() != 0o755 {
		t.Errorf("parent: %v", fi)
	}
	if fi, _ := e.fs.Stat(e.ctx, "/workspace/src/deep/a.txt"); fi.Mode().Perm() != 0o644 {
		t.Errorf("new file mode %v", fi.Mode())
	}

	// Replacing keeps the mode and the inode.
	e.put("/workspace/run.sh", "#!/bin/sh\n")
	if err := e.fs.Chmod(e.ctx, "/workspace/run.sh", 0o755); err != nil {
		t.Fatal(err)
	}
	fi0, _ := e.fs.Stat(e.ctx, "/workspace/run.sh")
	_, res = e.ok("write", `{"path":"run.sh","content":"echo hi\n"}`)
	if out := res.Structured.(*WriteOutput); out.Created {
		t.Error("replace reported as created")
	}
	fi1, _ := e.fs.Stat(e.ctx, "/workspace/run.sh")
	if fi1.Mode().Perm() != 0o755 || fi1.Attr().Ino != fi0.Attr().Ino || e.get("/workspace/run.sh") != "echo hi\n" {
		t.Errorf("replace: mode %v ino %d→%d", fi1.Mode(), fi0.Attr().Ino, fi1.Attr().Ino)
	}
	// An empty file is fine.
	e.ok("write", `{"path":"empty","content":""}`)

	e.fails("write", `{"path":"big","content":"01234567890"}`, CodeTooLarge, "11 bytes, over write's cap of 10 bytes", "edit")
	e.fails("write", `{"path":"src","content":"x"}`, CodeIsDirectory, "is a directory")
	e.fails("write", `{"path":"run.sh/x","content":"x"}`, CodeNotDirectory)
	e.fails("write", `{"path":"","content":"x"}`, CodeInvalid, "write needs a path")
	e.fails("write", `{"path":"/","content":"x"}`, CodeIsDirectory)
	e.fails("write", `{"path":"a","content":"x","mode":"0755"}`, CodeInvalid, `write has no input field "mode"`)
	e.fails("write", `{"path":"a","content":5}`, CodeInvalid, `field "content" must be a string`)
}

func TestWrite_readOnlyStore(t *testing.T) {
	e := newEnv(t, Options{ReadOnly: true})
	e.fails("write", `{"path":"a","content":"x"}`, CodeForbidden, "read-only")
	e.fails("exec", `{"command":"true"}`, CodeForbidden, "read-only")
	e.ok("ls", `{}`)
	var names []string
	for _, tl := range e.set.Tools() {
		names = append(names, tl.Name)
	}
	if strings.Join(names, ",") != "read,ls,find,grep" {
		t.Errorf("read-only tools: %v", names)
	}
}
