package tools

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/desk-dev/desk/client/quote"
	"github.com/desk-dev/desk/internal/textdiff"
	"github.com/desk-dev/desk/internal/vfs"
)

// EditInput is the input of edit.
type EditInput struct {
	Path  string `json:"path"`
	Edits []Edit `json:"edits"`
	// ExpectedRevision, if set, makes the edit fail with CodeConflict when
	// the file changed after that revision.
	ExpectedRevision uint64 `json:"expected_revision,omitempty"`
}

// Edit is one replacement: Old must occur exactly once in the file (after
// the edits before it).
type Edit struct {
	Old string `json:"old"`
	New string `json:"new"`
}

// EditOutput is the output of edit.
type EditOutput struct {
	Path     string `json:"path"`
	Revision uint64 `json:"revision"`
	// Diff is a unified diff of the change (cut at Options.MaxDiffBytes).
	Diff    string `json:"diff"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
	// Tolerant lists the edits (1-based) that matched only after ignoring
	// whitespace and quote differences.
	Tolerant []int `json:"tolerant,omitempty"`
	// whole: Diff shows the changed block replaced whole (the diff's cost
	// was over its cap).
	whole bool
}

func (o *EditOutput) content() []Content {
	var b strings.Builder
	fmt.Fprintf(&b, "edited %s: +%d -%d lines, revision %d\n", o.Path, o.Added, o.Removed, o.Revision)
	for _, i := range o.Tolerant {
		fmt.Fprintf(&b, "note: edit #%d matched only after ignoring differences in whitespace or quotes; check the diff\n", i)
	}
	if o.whole {
		fmt.Fprintf(&b, "note: the diff shows the changed block replaced whole: a finer diff would change over %d lines\n", textdiff.DefaultMaxCost)
	}
	b.WriteString(o.Diff)
	return []Content{TextContent(b.String())}
}

var editSpec = &spec{
	limits: func(o Options) []string {
		return []string{"Files up to 8 MiB.", "Files up to " + sizeText(int64(o.MaxEditFileBytes)) + "."}
	},
	Tool: Tool{
		Name:  "edit",
		Title: "Edit a file",
		Description: `Change part of an existing text file by replacing text: each edit's old text must occur exactly once in the file and is replaced by its new text. Several edits are applied in order, all or none. Returns a unified diff of the change and the file's new revision.

Copy old exactly from the file (read it first), without read's line-number prefixes, and include enough surrounding lines to make it unique. If old occurs several times the edit fails and says where; if it occurs nowhere the edit fails and shows the closest lines. Only when there is no exact match, a match that ignores differences in spaces, tabs and typographic quotes is tried, and applied to the original text. Line endings (CRLF) and a byte-order mark are kept.

Pass expected_revision (from read, write or a previous edit) to fail with a conflict instead of overwriting a change someone else made since. To create a file or replace all of it, use write. At most 100 edits per call. Files up to 8 MiB.`,
		InputSchema: schema(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "File to edit. Relative paths are taken from /workspace."},
    "edits": {
      "type": "array",
      "minItems": 1,
      "maxItems": 100,
      "description": "Replacements, applied in order; all succeed or none is applied. At most 100.",
      "items": {
        "type": "object",
        "properties": {
          "old": {"type": "string", "description": "Text to replace; must occur exactly once. Not empty."},
          "new": {"type": "string", "description": "Replacement text (empty: delete old)."}
        },
        "required": ["old", "new"],
        "additionalProperties": false
      }
    },
    "expected_revision": {"type": "integer", "minimum": 1, "description": "Fail with a conflict if the file changed after this revision (from read, write or edit)."}
  },
  "required": ["path", "edits"],
  "additionalProperties": false
}`),
		OutputSchema: schema(`{
  "type": "object",
  "properties": {
    "path": {"type": "string"},
    "revision": {"type": "integer", "description": "The file's revision after the edit."},
    "diff": {"type": "string", "description": "Unified diff of the change."},
    "added": {"type": "integer", "description": "Lines added."},
    "removed": {"type": "integer", "description": "Lines removed."},
    "tolerant": {"type": "array", "items": {"type": "integer"}, "description": "Edits (numbered from 1) matched only when ignoring whitespace and quote differences."}
  },
  "required": ["path", "revision", "diff", "added", "removed"]
}`),
		Destructive: true,
		Scopes:      []string{ScopeRead, ScopeWrite},
	},
	call: typed((*Set).edit),
}

// EditFile applies edits to a file: see the edit tool's description.
func (s *Set) EditFile(ctx context.Context, in EditInput) (*EditOutput, error) {
	return goCall(s, ctx, in, in.Path, (*Set).edit)
}

// MaxEdits is the most edits one edit call takes. Each edit scans the file
// (and, when it has no exact match, a folded copy of it) and builds the next
// text, so a call's work is bounded by MaxEdits times the file size, under
// Options.MaxEditFileBytes at every step.
const MaxEdits = 100

const bom = "\ufeff"

// testHookBeforeSwap, if set, runs between edit's read of the file and its
// compare-and-swap (tests race a writer there).
var testHookBeforeSwap func()

func (s *Set) edit(ctx context.Context, in EditInput, _ *CallOptions) (*EditOutput, error) {
	p, err := s.resolve("edit", in.Path, false)
	if err != nil {
		return nil, err
	}
	if len(in.Edits) == 0 {
		return nil, errorf(CodeInvalid, "edit needs at least one {old, new} in edits")
	}
	if len(in.Edits) > MaxEdits {
		return nil, errorf(CodeTooLarge, "edit takes at most %d edits per call, got %d: split them over several calls", MaxEdits, len(in.Edits))
	}
	for i, e := range in.Edits {
		switch {
		case e.Old == "":
			return nil, errorf(CodeInvalid, "edit #%d: old is empty. To add text, put a neighbouring line in old and repeat it in new; to create a file, use write", i+1)
		case e.Old == e.New:
			return nil, errorf(CodeInvalid, "edit #%d: old and new are the same, so it would change nothing", i+1)
		case int64(len(e.Old)) > s.opts.MaxEditFileBytes || int64(len(e.New)) > s.opts.MaxEditFileBytes:
			return nil, errorf(CodeTooLarge, "edit #%d: old or new is over edit's cap of %d bytes: use write to replace a whole file", i+1, s.opts.MaxEditFileBytes)
		}
	}
	ctx = s.actorCtx(ctx)
	unlock := s.lockPath(ctx, p, true)
	defer unlock()
	rp, err := s.fs.Realpath(ctx, p)
	if err != nil {
		return nil, notFoundHint(AsError(err, p), p)
	}
	fi, err := s.fs.Stat(ctx, rp)
	if err != nil {
		return nil, notFoundHint(AsError(err, p), p)
	}
	if fi.IsDir() {
		return nil, errorf(CodeIsDirectory, "%s is a directory", quote.Path(p))
	}
	if !fi.Mode().IsRegular() {
		return nil, errorf(CodeInvalid, "%s is not a regular file", quote.Path(p))
	}
	attr := fi.Attr()
	if attr.Size > s.opts.MaxEditFileBytes {
		return nil, errorf(CodeTooLarge, "%s is %d bytes, over edit's cap of %d bytes: change it with exec (sed, a script) instead", quote.Path(p), attr.Size, s.opts.MaxEditFileBytes)
	}
	if in.ExpectedRevision > 0 {
		c, err := s.changedSince(ctx, rp, attr.Ino, in.ExpectedRevision)
		if err != nil {
			return nil, err
		}
		if c == nil && rp != p {
			c, err = s.changedSince(ctx, p, 0, in.ExpectedRevision)
			if err != nil {
				return nil, err
			}
		}
		if c != nil {
			by := ""
			if c.Actor != "" {
				by = " by " + c.Actor
			}
			return nil, errorf(CodeConflict, "%s changed after revision %d (change %d: %s%s): read it again and redo the edit on its current content", quote.Path(p), in.ExpectedRevision, c.Seq, c.Op, by)
		}
	}
	data, err := s.fs.ReadFile(ctx, rp)
	if err != nil {
		return nil, AsError(err, p)
	}
	if isBinary(data[:min(len(data), sniffBytes)], false) || !utf8.Valid(data) {
		return nil, errorf(CodeBinary, "%s is not a UTF-8 text file: edit works on text; use exec to change binary files", quote.Path(p))
	}
	text := string(data)
	hasBOM := strings.HasPrefix(text, bom)
	text = strings.TrimPrefix(text, bom)
	crlf := strings.Contains(text, "\r\n") && strings.Count(text, "\r\n") == strings.Count(text, "\n")
	if crlf {
		text = strings.ReplaceAll(text, "\r\n", "\n")
	}
	orig := text
	var tolerant []int
	for i, e := range in.Edits {
		old, nw := e.Old, e.New
		if crlf {
			old, nw = strings.ReplaceAll(old, "\r\n", "\n"), strings.ReplaceAll(nw, "\r\n", "\n")
		}
		next, loose, err := replaceOnce(text, old, nw, i+1, p, len(in.Edits))
		if err != nil {
			return nil, err
		}
		if loose {
			tolerant = append(tolerant, i+1)
		}
		if int64(len(next)) > s.opts.MaxEditFileBytes {
			return nil, errorf(CodeTooLarge, "edit #%d would make %s %d bytes, over edit's cap of %d bytes", i+1, quote.Path(p), len(next), s.opts.MaxEditFileBytes)
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		text = next
	}
	if text == orig {
		return nil, errorf(CodeInvalid, "the edits leave %s unchanged", quote.Path(p))
	}
	diff, err := unifiedDiff(ctx, quote.Path(p), orig, text, 3, s.opts.MaxDiffBytes)
	if err != nil {
		return nil, err
	}
	newText := text
	if crlf {
		newText = strings.ReplaceAll(newText, "\n", "\r\n")
	}
	if hasBOM {
		newText = bom + newText
	}
	if testHookBeforeSwap != nil {
		testHookBeforeSwap()
	}
	before := s.fs.Seq()
	want := idOf(attr)
	err = s.fs.Batch(ctx, func(b *vfs.Batch) error {
		// Compare and swap: nothing may have written the file since it was read.
		fi, err := b.Lstat(rp)
		if err != nil {
			return err
		}
		if idOf(fi.Attr()) != want {
			return errorf(CodeConflict, "%s changed while it was being edited: read it again and redo the edit", quote.Path(p))
		}
		return b.WriteFile(rp, []byte(newText), 0o644)
	})
	if err != nil {
		return nil, AsError(err, p)
	}
	return &EditOutput{Path: quote.Path(p), Revision: s.ownRevision(ctx, rp, attr.Ino, before), Diff: diff.text, Added: diff.added, Removed: diff.removed, Tolerant: tolerant, whole: diff.whole}, nil
}

// notFoundHint adds "use write" to a not-found error.
func notFoundHint(e *Error, p string) *Error {
	if e.Code == CodeNotFound {
		return errorf(CodeNotFound, "%s does not exist: use write to create it (or find to look for the right path)", quote.Path(p))
	}
	return e
}

// replaceOnce replaces the one occurrence of old in text by nw: exactly, or
// else tolerantly (loose). n is the edit's number, for messages.
func replaceOnce(text, old, nw string, n int, p string, total int) (string, bool, error) {
	which := ""
	if total > 1 {
		which = fmt.Sprintf(" #%d", n)
	}
	if offs := findAll(text, old, 50); len(offs) == 1 {
		return text[:offs[0]] + nw + text[offs[0]+len(old):], false, nil
	} else if len(offs) > 1 {
		return "", false, errorf(CodeAmbiguousMatch, "edit%s: old matches %s in %s (starting on lines %s): include more surrounding lines in old so that it matches exactly once", which, countTimes(len(offs)), quote.Path(p), lineList(text, offs))
	}
	f := fold(text)
	q := foldQuery(old)
	if q != "" {
		offs := findAll(f.text, q, 50)
		if len(offs) == 1 {
			start, end := widen(text, old, int(f.start[offs[0]]), int(f.end[offs[0]+len(q)-1]))
			return text[:start] + nw + text[end:], true, nil
		}
		if len(offs) > 1 {
			starts := make([]int, len(offs))
			for i, o := range offs {
				starts[i] = int(f.start[o])
			}
			return "", false, errorf(CodeAmbiguousMatch, "edit%s: old does not occur exactly, and ignoring whitespace and quotes it matches %s in %s (starting on lines %s): copy old exactly from the file, with more surrounding lines", which, countTimes(len(offs)), quote.Path(p), lineList(text, starts))
		}
	}
	msg := fmt.Sprintf("edit%s: old was not found in %s", which, quote.Path(p))
	if looksNumbered(old) {
		msg += ". It seems to include read's line-number prefixes (\"12\\t\"): leave those out"
	}
	if cl := closestLines(text, old); cl != "" {
		msg += ". The most similar lines are:\n" + cl + "Copy old exactly from the file (read it again if it may have changed)"
	} else {
		msg += " (nothing similar either): read the file again and copy old exactly"
	}
	return "", false, errorf(CodeNoMatch, "%s", msg)
}

func countTimes(n int) string {
	if n >= 50 {
		return "50 or more times"
	}
	return fmt.Sprintf("%d times", n)
}

// widen extends a tolerant match [start, end) of old in text over what the
// folding dropped at its edges but old has: the indentation of its first
// line, blank lines before it, and the line end after it. Without this the
// original's indentation or newline would stay next to new's own.
func widen(text, old string, start, end int) (int, int) {
	lead := 0 // newlines before old's first non-blank line
	i := 0
	for i < len(old) && (isBlank(old[i]) || old[i] == '\n') {
		if old[i] == '\n' {
			lead++
		}
		i++
	}
	indented := i > 0 && isBlank(old[i-1])
	if indented || lead > 0 {
		ls := start
		for ls > 0 && isBlank(text[ls-1]) {
			ls--
		}
		if ls == 0 || text[ls-1] == '\n' {
			start = ls
			for ; lead > 0 && start > 0 && text[start-1] == '\n'; lead-- {
				j := start - 1
				for j > 0 && isBlank(text[j-1]) {
					j--
				}
				if j > 0 && text[j-1] != '\n' {
					start-- // the newline ending a non-blank line
					break
				}
				start = j // a blank line
			}
		}
	}
	if strings.HasSuffix(strings.TrimRight(old, " \t\r"), "\n") {
		e := end
		for e < len(text) && isBlank(text[e]) {
			e++
		}
		if e < len(text) && text[e] == '\n' {
			end = e + 1
		}
	}
	return start, end
}
