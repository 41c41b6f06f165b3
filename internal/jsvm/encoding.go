package jsvm

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/desk-dev/desk/internal/jsvm/qjs"
)

// The byte encodings of Buffer, TextEncoder and TextDecoder, done in Go.
// Strings arrive from JavaScript as UTF-8 (a lone surrogate as U+FFFD).

func init() {
	hostFuncs["encode"] = hostEncode
	hostFuncs["decode"] = hostDecode
	hostFuncs["byteLength"] = func(x *execution, args []qjs.Value) (qjs.Value, error) {
		s, enc, err := stringAndEncoding(x, args)
		if err != nil {
			return qjs.Undefined, err
		}
		if enc == "utf8" {
			return qjs.Int(int64(len(s))), nil
		}
		b, err := encodeString(s, enc)
		return qjs.Int(int64(len(b))), err
	}
	hostFuncs["isUtf8"] = func(x *execution, args []qjs.Value) (qjs.Value, error) {
		b, _ := x.c.Bytes(arg(args, 0))
		return qjs.Bool(utf8.Valid(b)), nil
	}
}

// stringAndEncoding reads the (string, encoding) arguments of encode and
// byteLength.
func stringAndEncoding(x *execution, args []qjs.Value) (s, enc string, err error) {
	if s, err = x.argString(args, 0); err == nil {
		enc, err = x.argString(args, 1)
	}
	return s, enc, err
}

// hostEncode is host.encode(string, encoding) → ArrayBuffer.
func hostEncode(x *execution, args []qjs.Value) (qjs.Value, error) {
	s, enc, err := stringAndEncoding(x, args)
	if err != nil {
		return qjs.Undefined, err
	}
	b, err := encodeString(s, enc)
	if err != nil {
		return qjs.Undefined, err
	}
	return x.c.ArrayBuffer(b)
}

// hostDecode is host.decode(bytes, encoding) → string. "utf8-fatal"
// throws on malformed input, as TextDecoder with fatal.
func hostDecode(x *execution, args []qjs.Value) (qjs.Value, error) {
	b, ok := x.c.Bytes(arg(args, 0))
	if !ok {
		return qjs.Undefined, fmt.Errorf("decode: want bytes")
	}
	enc, err := x.argString(args, 1)
	if err != nil {
		return qjs.Undefined, err
	}
	if enc == "utf8-fatal" {
		if !utf8.Valid(b) {
			return qjs.Undefined, x.jsError("TypeError", "", "The encoded data was not valid for encoding utf-8",
				[]prop{{"code", "ERR_ENCODING_INVALID_ENCODED_DATA"}}, true)
		}
		enc = "utf8"
	}
	s, err := decodeBytes(b, enc)
	if err != nil {
		return qjs.Undefined, err
	}
	return x.c.String(s)
}

// utf16Units returns the UTF-16 code units of s.
func utf16Units(s string) []uint16 { return utf16.Encode([]rune(s)) }

// encodeString encodes s as Node's Buffer.from(s, enc) does.
func encodeString(s, enc string) ([]byte, error) {
	switch enc {
	case "utf8":
		return []byte(s), nil
	case "latin1", "ascii":
		u := utf16Units(s)
		b := make([]byte, len(u))
		for i, c := range u {
			b[i] = byte(c)
		}
		return b, nil
	case "utf16le":
		u := utf16Units(s)
		b := make([]byte, 2*len(u))
		for i, c := range u {
			b[2*i], b[2*i+1] = byte(c), byte(c>>8)
		}
		return b, nil
	case "hex":
		// Node decodes pairs up to the first one that is not hex.
		n := 0
		for n+1 < len(s) && isHex(s[n]) && isHex(s[n+1]) {
			n += 2
		}
		return hex.DecodeString(s[:n])
	case "base64", "base64url":
		return decodeBase64Loose(s), nil
	}
	return nil, fmt.Errorf("unknown encoding %q", enc)
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// decodeBase64Loose decodes base64 as Node does: both alphabets, padding
// optional, characters outside the alphabet skipped, stopping at '='.
func decodeBase64Loose(s string) []byte {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '=':
			i = len(s)
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			b.WriteByte(c)
		case c == '+', c == '-':
			b.WriteByte('+')
		case c == '/', c == '_':
			b.WriteByte('/')
		}
	}
	t := b.String()
	if len(t)%4 == 1 {
		t = t[:len(t)-1]
	}
	out, err := base64.RawStdEncoding.DecodeString(t)
	if err != nil {
		// Trailing bits that are not zero: decode what is whole.
		out, _ = base64.RawStdEncoding.DecodeString(t[:len(t)/4*4])
	}
	return out
}

// decodeBytes decodes b as Node's buf.toString(enc) does.
func decodeBytes(b []byte, enc string) (string, error) {
	switch enc {
	case "utf8":
		return qjs.ToValidUTF8(string(b)), nil
	case "latin1":
		r := make([]rune, len(b))
		for i, c := range b {
			r[i] = rune(c)
		}
		return string(r), nil
	case "ascii":
		r := make([]byte, len(b))
		for i, c := range b {
			r[i] = c & 0x7f
		}
		return string(r), nil
	case "utf16le":
		u := make([]uint16, len(b)/2)
		for i := range u {
			u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
		}
		return string(utf16.Decode(u)), nil
	case "hex":
		return hex.EncodeToString(b), nil
	case "base64":
		return base64.StdEncoding.EncodeToString(b), nil
	case "base64url":
		return base64.RawURLEncoding.EncodeToString(b), nil
	}
	return "", fmt.Errorf("unknown encoding %q", enc)
}
