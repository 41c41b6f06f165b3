package tools

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/desk-dev/desk/internal/textdiff"
)

// editDiff is edit's report of a change.
type editDiff struct {
	text           string // unified diff, cut at the byte cap with a note
	added, removed int
	// whole reports textdiff's fallback: the changed block is shown
	// replaced whole, because a finer diff was over the cap on its cost.
	whole bool
}

// unifiedDiff returns a unified diff (context lines of context) from a to
// b, with name in the headers, in GNU's format (a last line without a
// newline is marked), so that GNU patch applies it. The text is empty when
// a == b and is cut after maxBytes. The diff is a shortest one
// (textdiff's minimal mode) up to textdiff.DefaultMaxCost lines changed;
// past that cap it replaces the changed block whole.
func unifiedDiff(ctx context.Context, name, a, b string, context, maxBytes int) (editDiff, error) {
	if a == b {
		return editDiff{}, nil
	}
	al, bl := textdiff.SplitLines(a), textdiff.SplitLines(b)
	r, err := textdiff.Diff(ctx, al, bl, textdiff.Options{Minimal: true})
	if err != nil {
		return editDiff{}, fmt.Errorf("diff %s: %w", name, err)
	}
	d := editDiff{whole: r.Fallback}
	for _, c := range r.Changes {
		d.removed += c.A1 - c.A0
		d.added += c.B1 - c.B0
	}
	w := &cappedWriter{max: maxBytes}
	w.WriteString("--- " + name + "\n+++ " + name + "\n")
	textdiff.WriteUnified(w, al, bl, textdiff.Hunks(r.Changes, context, len(al), len(bl)))
	d.text = w.sb.String()
	if w.dropped > 0 {
		d.text += fmt.Sprintf("\n[diff cut: %d more bytes; read the file to see the result]\n", w.dropped)
	}
	return d, nil
}

// cappedWriter keeps the first max bytes written to it (cut at a rune
// start) and counts the rest.
type cappedWriter struct {
	sb      strings.Builder
	max     int
	dropped int
}

func (w *cappedWriter) WriteString(s string) (int, error) {
	if w.dropped > 0 {
		w.dropped += len(s)
		return len(s), nil
	}
	room := w.max - w.sb.Len()
	if len(s) <= room {
		return w.sb.WriteString(s)
	}
	cut := room
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	w.sb.WriteString(s[:cut])
	w.dropped = len(s) - cut
	return len(s), nil
}
