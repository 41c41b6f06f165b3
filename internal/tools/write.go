package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"syscall"

	"github.com/desk-dev/desk/client/quote"
)

// WriteInput is the input of write.
type WriteInput struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// WriteOutput is the output of write.
type WriteOutput struct {
	Path     string `json:"path"`
	Bytes    int    `json:"bytes"`
	Created  bool   `json:"created"`
	Revision uint64 `json:"revision"`
}

func (o *WriteOutput) content() []Content {
	verb := "replaced"
	if o.Created {
		verb = "created"
	}
	return []Content{TextContent(fmt.Sprintf("%s %s (%s), revision %d", verb, o.Path, plural(int64(o.Bytes), "byte"), o.Revision))}
}

var writeSpec = &spec{
	limits: func(o Options) []string {
		return []string{"at most 2 MiB per call", "at most " + sizeText(int64(o.MaxWriteBytes)) + " per call"}
	},
	Tool: Tool{
		Name:  "write",
		Title: "Write a file",
		Description: `Write a whole file: create it, or replace all of its content. Missing parent directories are created; an existing file keeps its permissions (an executable stays executable). New files get mode 0644.

Use it for new files and for complete rewrites of small ones. To change part of an existing file, prefer edit: it sends only the change, cannot lose concurrent edits, and shows a diff. Content is at most 2 MiB per call; for larger files write a first part and extend it with edit, or generate the file with exec.`,
		InputSchema: schema(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "File to write. Relative paths are taken from /workspace."},
    "content": {"type": "string", "description": "The complete new content of the file (UTF-8 text)."}
  },
  "required": ["path", "content"],
  "additionalProperties": false
}`),
		OutputSchema: schema(`{
  "type": "object",
  "properties": {
    "path": {"type": "string"},
    "bytes": {"type": "integer", "description": "Bytes written."},
    "created": {"type": "boolean", "description": "The file did not exist before."},
    "revision": {"type": "integer", "description": "The file's revision after the write (edit's expected_revision)."}
  },
  "required": ["path", "bytes", "created", "revision"]
}`),
		Destructive: true,
		Idempotent:  true,
		Scopes:      []string{ScopeWrite},
	},
	call: typed((*Set).write),
}

// Write writes a whole file: see the write tool's description.
func (s *Set) Write(ctx context.Context, in WriteInput) (*WriteOutput, error) {
	return goCall(s, ctx, in, in.Path, (*Set).write)
}

func (s *Set) write(ctx context.Context, in WriteInput, _ *CallOptions) (*WriteOutput, error) {
	p, err := s.resolve("write", in.Path, false)
	if err != nil {
		return nil, err
	}
	if len(in.Content) > s.opts.MaxWriteBytes {
		return nil, errorf(CodeTooLarge, "the content is %d bytes, over write's cap of %d bytes: write a smaller first part and add the rest with edit, or generate the file with exec", len(in.Content), s.opts.MaxWriteBytes)
	}
	if p == "/" {
		return nil, errorf(CodeIsDirectory, "/ is a directory")
	}
	ctx = s.actorCtx(ctx)
	unlock := s.lockPath(ctx, p, true)
	defer unlock()
	created := false
	if fi, err := s.fs.Stat(ctx, p); err == nil {
		if fi.IsDir() {
			return nil, errorf(CodeIsDirectory, "%s is a directory: give a file path inside it", quote.Path(p))
		}
	} else if errors.Is(err, syscall.ENOENT) {
		created = true
	} else {
		return nil, AsError(err, p)
	}
	before := s.fs.Seq()
	if created {
		if err := s.fs.MkdirAll(ctx, path.Dir(p), 0o755); err != nil {
			if errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.EEXIST) {
				return nil, errorf(CodeNotDirectory, "cannot create %s: a component of its directory is a file", quote.Path(p))
			}
			return nil, AsError(err, path.Dir(p))
		}
	}
	if err := s.fs.WriteFile(ctx, p, []byte(in.Content), fs.FileMode(0o644)); err != nil {
		return nil, AsError(err, p)
	}
	var ino uint64
	if fi, err := s.fs.Stat(ctx, p); err == nil {
		ino = fi.Attr().Ino
	}
	return &WriteOutput{Path: quote.Path(p), Bytes: len(in.Content), Created: created, Revision: s.ownRevision(ctx, p, ino, before)}, nil
}
