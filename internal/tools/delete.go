package tools

import (
	"context"
	"errors"
	"fmt"
	"syscall"

	"github.com/desk-dev/desk/client/quote"
)

// DeleteInput is the input of delete.
type DeleteInput struct {
	Path      string `json:"path"`
	Recursive bool   `json:"recursive,omitempty"`
}

// DeleteOutput is the output of delete.
type DeleteOutput struct {
	Path string `json:"path"`
	// Type is what was deleted: "file", "dir", "symlink" or "other".
	Type string `json:"type"`
}

func (o *DeleteOutput) content() []Content {
	what := o.Type
	if what == "dir" {
		what = "directory"
	}
	return []Content{TextContent(fmt.Sprintf("deleted %s %s", what, o.Path))}
}

var deleteSpec = &spec{
	Tool: Tool{
		Name:        "delete",
		Title:       "Delete a file or directory",
		Description: `Delete a file, a symlink (not what it points to) or a directory. A directory with entries needs recursive: true, which deletes everything below it. Deleting the workspace root / is refused. There is no undo: the change journal records the deletion, not the content.`,
		InputSchema: schema(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "What to delete. Relative paths are taken from /workspace."},
    "recursive": {"type": "boolean", "description": "Delete a directory with everything in it. Default false."}
  },
  "required": ["path"],
  "additionalProperties": false
}`),
		OutputSchema: schema(`{
  "type": "object",
  "properties": {
    "path": {"type": "string"},
    "type": {"type": "string", "enum": ["file", "dir", "symlink", "other"], "description": "What was deleted."}
  },
  "required": ["path", "type"]
}`),
		Destructive: true,
		Scopes:      []string{ScopeWrite},
	},
	call: typed((*Set).delete),
}

// Delete deletes a path: see the delete tool's description.
func (s *Set) Delete(ctx context.Context, in DeleteInput) (*DeleteOutput, error) {
	return goCall(s, ctx, in, in.Path, (*Set).delete)
}

func (s *Set) delete(ctx context.Context, in DeleteInput, _ *CallOptions) (*DeleteOutput, error) {
	p, err := s.resolve("delete", in.Path, false)
	if err != nil {
		return nil, err
	}
	if p == "/" {
		return nil, errorf(CodeInvalid, "refusing to delete the workspace root /: delete the entries inside it instead")
	}
	ctx = s.actorCtx(ctx)
	unlock := s.lockPath(ctx, p, true)
	defer unlock()
	fi, err := s.fs.Lstat(ctx, p)
	if err != nil {
		return nil, AsError(err, p)
	}
	out := &DeleteOutput{Path: quote.Path(p), Type: typeName(fi.Attr().Mode)}
	if fi.IsDir() && in.Recursive {
		err = s.fs.RemoveAll(ctx, p)
	} else {
		err = s.fs.Remove(ctx, p)
	}
	if errors.Is(err, syscall.ENOTEMPTY) {
		return nil, errorf(CodeNotEmpty, "%s is a directory that is not empty: pass recursive: true to delete it with everything in it (ls it first if unsure)", quote.Path(p))
	}
	if err != nil {
		return nil, AsError(err, p)
	}
	return out, nil
}
