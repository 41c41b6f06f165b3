package chat

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Display bounds.
const (
	callWidth = 160 // a tool call's line
	lineWidth = 160 // a shown result line
)

// showCall prints a tool call on one line: "-> name key=value ...", strings
// quoted, cut at callWidth.
func (a *Agent) showCall(c Block) {
	a.endLine()
	var b strings.Builder
	b.WriteString("-> " + c.Name)
	var in map[string]json.RawMessage
	if json.Unmarshal(c.Input, &in) == nil {
		keys := make([]string, 0, len(in))
		for k := range in {
			keys = append(keys, k)
		}
		// The fields a person looks for first, then the rest by name.
		first := map[string]int{"path": 0, "command": 1, "pattern": 2, "query": 3}
		sort.Slice(keys, func(i, j int) bool {
			fi, iok := first[keys[i]]
			fj, jok := first[keys[j]]
			if iok != jok {
				return iok
			}
			if iok {
				return fi < fj
			}
			return keys[i] < keys[j]
		})
		for _, k := range keys {
			v := in[k]
			var s string
			if json.Unmarshal(v, &s) == nil {
				if len(s) > 60 {
					s = fmt.Sprintf("%s…(%d bytes)", cutUTF8(s, 48), len(s))
				}
				fmt.Fprintf(&b, " %s=%s", k, strconv.Quote(s))
			} else {
				fmt.Fprintf(&b, " %s=%s", k, cutUTF8(string(v), 60))
			}
		}
	} else {
		b.WriteString(" " + cutUTF8(string(c.Input), 80))
	}
	line := b.String()
	if len(line) > callWidth {
		line = cutUTF8(line, callWidth-1) + "…"
	}
	fmt.Fprintln(a.io.Out, line)
}

// showResult prints a tool result, indented: its first ShowLines lines, each
// cut at lineWidth, then how much more there is.
func (a *Agent) showResult(r Block) {
	var text strings.Builder
	for _, c := range r.Content {
		if c.Type == "image" {
			fmt.Fprintf(&text, "[image %s, %d bytes]\n", c.MIMEType, len(c.Data))
			continue
		}
		text.WriteString(c.Text)
		if !strings.HasSuffix(c.Text, "\n") {
			text.WriteByte('\n')
		}
	}
	lines := strings.Split(strings.TrimSuffix(text.String(), "\n"), "\n")
	prefix := "   "
	if r.IsError {
		prefix = "   error: "
	}
	for i, l := range lines {
		if i == a.cfg.ShowLines {
			fmt.Fprintf(a.io.Out, "   … %d more lines (%d bytes in all)\n", len(lines)-i, text.Len())
			break
		}
		l = printable(l)
		if len(l) > lineWidth {
			l = cutUTF8(l, lineWidth-1) + "…"
		}
		fmt.Fprintln(a.io.Out, prefix+l)
		prefix = "   "
	}
}

// capContent bounds the text of a tool result to max bytes: past it, each
// text part keeps its share as head (three quarters) and tail, with a note
// of the bytes cut between them. Images pass (desk bounds them).
func capContent(cs []Content, max int) []Content {
	total := 0
	for _, c := range cs {
		total += len(c.Text)
	}
	if total <= max {
		return cs
	}
	out := make([]Content, len(cs))
	for i, c := range cs {
		out[i] = c
		if c.Type == "image" || len(c.Text) == 0 {
			continue
		}
		share := max * len(c.Text) / total
		if len(c.Text) <= share {
			continue
		}
		head := cutUTF8(c.Text, share*3/4)
		tail := tailUTF8(c.Text, share-len(head))
		out[i].Text = fmt.Sprintf("%s\n[… %d bytes cut here by the agent: a tool result sent to the model is at most %d bytes; read a range, grep, or page with offset for the rest …]\n%s",
			head, len(c.Text)-len(head)-len(tail), max, tail)
	}
	return out
}

// cutUTF8 is s's first n bytes or fewer, not splitting a character.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// tailUTF8 is s's last n bytes or fewer, not splitting a character.
func tailUTF8(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}

// printable replaces what a terminal would act on — control characters
// but tab (escape sequences begin with one), DEL, the C1 controls and
// invalid UTF-8 — with U+FFFD, so a command's output cannot move the
// cursor, retitle the window or hide lines.
func printable(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || r < 0x20 && r != '\t' || r >= 0x7f && r < 0xa0 {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r == utf8.RuneError || r < 0x20 && r != '\t' || r >= 0x7f && r < 0xa0 {
			r = utf8.RuneError
		}
		b.WriteRune(r)
	}
	return b.String()
}
