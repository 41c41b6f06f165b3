package qjs

import (
	"strings"
	"unicode/utf8"
)

// ToValidUTF8 returns s with every maximal invalid subsequence replaced by one
// U+FFFD, as the WHATWG UTF-8 decoder (TextDecoder, Node's Buffer.toString)
// does. Valid input is returned as it is.
func ToValidUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			b.WriteByte(s[i])
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r != utf8.RuneError || n > 1 {
			b.WriteString(s[i : i+n])
			i += n
			continue
		}
		b.WriteString("\uFFFD")
		i += maximalSubpart(s[i:])
	}
	return b.String()
}

// maximalSubpart returns the length of the invalid sequence at the start of
// s that the WHATWG decoder replaces by one U+FFFD: a lead byte and the
// continuation bytes that could still have completed it.
func maximalSubpart(s string) int {
	c := s[0]
	need, lo, hi := 0, byte(0x80), byte(0xBF)
	switch {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case c == 0xED:
		need, hi = 2, 0x9F
	case c >= 0xE1 && c <= 0xEF:
		need = 2
	case c == 0xF0:
		need, lo = 3, 0x90
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	case c == 0xF4:
		need, hi = 3, 0x8F
	default:
		return 1
	}
	i := 1
	for ; i <= need && i < len(s); i++ {
		b := s[i]
		if i == 1 && (b < lo || b > hi) || i > 1 && (b < 0x80 || b > 0xBF) {
			return i
		}
	}
	return i
}

// fromWTF8 copies the engine's UTF-8 form of a string, where a lone
// surrogate is the three bytes ED A0-BF 80-BF, into a Go string with U+FFFD
// (also three bytes) in its place.
func fromWTF8(b []byte) string {
	out := []byte(nil)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == 0xED && b[i+1] >= 0xA0 && b[i+1] <= 0xBF && b[i+2] >= 0x80 && b[i+2] <= 0xBF {
			if out == nil {
				out = append([]byte(nil), b...)
			}
			out[i], out[i+1], out[i+2] = 0xEF, 0xBF, 0xBD
			i += 2
		}
	}
	if out == nil {
		return string(b)
	}
	return string(out)
}
