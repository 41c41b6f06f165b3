package tools

import (
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/desk-dev/desk/client/quote"
)

// A cursor is where a page of ls, find or grep ended: the next call starts
// there at the cost of one page, where an offset re-reads everything before
// it. It is opaque to callers: "c1." and the URL-safe base64 (unpadded) of
// the fields below joined by NUL bytes, which no store path holds, so any
// name (not UTF-8, quotes, newlines) survives it exactly.
//
//	tool   "ls", "find" or "grep": a cursor is taken back by its own tool only
//	root   the absolute store path the call listed or searched
//	after  ls: the last name listed; find: the last path visited;
//	       grep: the path to resume in
//	line   grep: the lines of that path already searched (0 for find and ls)
//	count  the entries or matches returned before the cursor, so that
//	       next_offset stays meaningful for callers that page by offset
//
// A cursor names a position in name order, not a snapshot: what is created
// after it is seen, what is removed is not, and nothing is returned twice.
type cursor struct {
	tool, root, after string
	line, count       int
}

const cursorPrefix = "c1."

// String encodes the cursor.
func (c cursor) String() string {
	raw := strings.Join([]string{c.tool, c.root, c.after, strconv.Itoa(c.line), strconv.Itoa(c.count)}, "\x00")
	return cursorPrefix + base64.RawURLEncoding.EncodeToString([]byte(raw))
}

// parseCursor decodes s, a cursor tool gave for root. The error says what
// is wrong with it and what to do (CodeInvalid).
func parseCursor(tool, root, s string) (cursor, error) {
	bad := func(why string) (cursor, error) {
		return cursor{}, errorf(CodeInvalid, "%s: the cursor %q %s; pass next_cursor from the previous %s result as it is, with the same path", tool, s, why, tool)
	}
	b64, ok := strings.CutPrefix(s, cursorPrefix)
	if !ok {
		return bad("is not a cursor")
	}
	raw, err := base64.RawURLEncoding.DecodeString(b64)
	if err != nil {
		return bad("is not a cursor")
	}
	f := strings.Split(string(raw), "\x00")
	if len(f) != 5 {
		return bad("is not a cursor")
	}
	c := cursor{tool: f[0], root: f[1], after: f[2]}
	if c.line, err = strconv.Atoi(f[3]); err != nil || c.line < 0 {
		return bad("is not a cursor")
	}
	if c.count, err = strconv.Atoi(f[4]); err != nil || c.count < 0 {
		return bad("is not a cursor")
	}
	if c.tool != tool {
		return bad("is a cursor of " + c.tool)
	}
	if c.root != root {
		return bad("was given for " + quote.Path(c.root) + ", not " + quote.Path(root))
	}
	switch tool {
	case "ls":
		if c.after == "" || strings.Contains(c.after, "/") || len(c.after) > 255 {
			return bad("is not a cursor")
		}
	default:
		if c.after != root && !strings.HasPrefix(c.after, strings.TrimSuffix(root, "/")+"/") || len(c.after) > 4096 {
			return bad("is not a cursor")
		}
	}
	return c, nil
}

// pageStart validates a call's offset and cursor (at most one of them).
func pageStart(tool, root string, offset int, cur string) (cursor, bool, error) {
	if cur == "" {
		return cursor{}, false, nil
	}
	if offset != 0 {
		return cursor{}, false, errorf(CodeInvalid, "%s: give either offset or cursor, not both", tool)
	}
	c, err := parseCursor(tool, root, cur)
	return c, err == nil, err
}
