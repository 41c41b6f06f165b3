package main

import "unicode/utf8"

// unescapeHTML undoes the escaping Go's encoding/json applies to JSON it
// encodes (the record and API layers): \u003c, \u003e, \u0026, \u2028 and
// \u2029 inside strings become the characters again, so that the value line
// of an execution is the text its backend produced (for the js backend, the
// engine's own JSON.stringify, which writes those characters as they are).
// The inverse is exact: a producer writing the escape itself (a backslash
// followed by "u003c") has its backslash escaped, which this keeps.
func unescapeHTML(b []byte) []byte {
	out := make([]byte, 0, len(b))
	inStr := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case !inStr:
			if c == '"' {
				inStr = true
			}
			out = append(out, c)
		case c == '"':
			inStr = false
			out = append(out, c)
		case c == '\\' && i+1 < len(b):
			if b[i+1] == 'u' && i+5 < len(b) {
				if r, ok := htmlEscapes[string(b[i+2:i+6])]; ok {
					out = utf8.AppendRune(out, r)
					i += 5
					continue
				}
			}
			out = append(out, c, b[i+1])
			i++
		default:
			out = append(out, c)
		}
	}
	return out
}

// htmlEscapes are the escapes encoding/json writes for HTML safety, by hex
// digits (it writes them in lower case).
var htmlEscapes = map[string]rune{"003c": '<', "003e": '>', "0026": '&', "2028": '\u2028', "2029": '\u2029'}
