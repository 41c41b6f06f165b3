package cmds

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// jqDecoder decodes a sequence of JSON values from text held in memory into
// gojq's values (map[string]any, []any, int, float64, string, bool, nil),
// recording the order of object keys in the key-order hints.
//
// Well-formed text is parsed directly over the bytes (no tokenizer, no
// allocation beyond the values themselves). Anything the direct parser does
// not accept (a syntax error, nesting past encoding/json's limit) is decoded
// again from the start of that value with encoding/json's tokenizer, which
// gives the value or the error exactly as the command always reported it:
// the direct parser accepts a subset of what encoding/json accepts, so its
// only effect is speed.
type jqDecoder struct {
	data  []byte
	pos   int // next byte to parse (direct mode)
	order *jqKeyOrder

	// Lines counted so far: newlines in data[:linePos].
	linePos, lines int

	// lastKeys is the key list of the last object recorded in order, so
	// that a run of objects with the same keys records them once.
	lastKeys []string

	// slow is encoding/json's tokenizer over data[base:], once the direct
	// parser has met text it does not accept.
	slow *json.Decoder
	base int
}

// jqMaxDepth is encoding/json's nesting limit (beyond it the tokenizer
// reports "exceeded max depth").
const jqMaxDepth = 10000

func (in *jqInputs) newDecoder(data []byte) *jqDecoder {
	if in.order == nil {
		in.order = newJqKeyOrder("")
	}
	return &jqDecoder{data: data, order: in.order}
}

// offset is the input offset after the last value read (or where the
// tokenizer stopped at an error).
func (d *jqDecoder) offset() int {
	if d.slow != nil {
		return d.base + int(d.slow.InputOffset())
	}
	return d.pos
}

// line is jq's line number of the value just decoded (what "jq: error (at
// FILE:LINE)" says), counted incrementally.
func (d *jqDecoder) line() int {
	// jq feeds its parser a line at a time and counts the lines fed: the
	// newlines up to the end of the line the value ends on.
	end := min(d.offset(), len(d.data))
	if i := bytes.IndexByte(d.data[end:], '\n'); i >= 0 {
		end += i + 1
	} else {
		end = len(d.data)
	}
	if end < d.linePos {
		d.linePos, d.lines = 0, 0
	}
	d.lines += bytes.Count(d.data[d.linePos:end], []byte{'\n'})
	d.linePos = end
	return d.lines
}

// errJqSlow makes the direct parser hand a value to the tokenizer.
var errJqSlow = errors.New("jq: decode with the tokenizer")

// value returns the next value, or io.EOF at the end of the text.
func (d *jqDecoder) value() (any, error) {
	if d.slow != nil {
		return d.slowValue()
	}
	d.skipSpace()
	if d.pos >= len(d.data) {
		return nil, io.EOF
	}
	start := d.pos
	v, err := d.parse(0)
	if err == nil {
		return v, nil
	}
	d.slow = json.NewDecoder(bytes.NewReader(d.data[start:]))
	d.slow.UseNumber()
	d.base = start
	return d.slowValue()
}

func (d *jqDecoder) skipSpace() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// parse parses one value at d.pos (after white space).
func (d *jqDecoder) parse(depth int) (any, error) {
	if d.pos >= len(d.data) {
		return nil, errJqSlow
	}
	switch c := d.data[d.pos]; c {
	case '{':
		if depth >= jqMaxDepth {
			return nil, errJqSlow
		}
		d.pos++
		obj := map[string]any{}
		var keys []string
		d.skipSpace()
		if d.pos < len(d.data) && d.data[d.pos] == '}' {
			d.pos++
			d.record(keys)
			return obj, nil
		}
		for {
			if d.pos >= len(d.data) || d.data[d.pos] != '"' {
				return nil, errJqSlow
			}
			k, err := d.str()
			if err != nil {
				return nil, err
			}
			d.skipSpace()
			if d.pos >= len(d.data) || d.data[d.pos] != ':' {
				return nil, errJqSlow
			}
			d.pos++
			d.skipSpace()
			v, err := d.parse(depth + 1)
			if err != nil {
				return nil, err
			}
			if _, dup := obj[k]; !dup {
				keys = append(keys, k)
			}
			obj[k] = v
			d.skipSpace()
			if d.pos >= len(d.data) {
				return nil, errJqSlow
			}
			switch d.data[d.pos] {
			case ',':
				d.pos++
				d.skipSpace()
			case '}':
				d.pos++
				d.record(keys)
				return obj, nil
			default:
				return nil, errJqSlow
			}
		}
	case '[':
		if depth >= jqMaxDepth {
			return nil, errJqSlow
		}
		d.pos++
		arr := []any{}
		d.skipSpace()
		if d.pos < len(d.data) && d.data[d.pos] == ']' {
			d.pos++
			return arr, nil
		}
		for {
			v, err := d.parse(depth + 1)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
			d.skipSpace()
			if d.pos >= len(d.data) {
				return nil, errJqSlow
			}
			switch d.data[d.pos] {
			case ',':
				d.pos++
				d.skipSpace()
			case ']':
				d.pos++
				return arr, nil
			default:
				return nil, errJqSlow
			}
		}
	case '"':
		return d.str()
	case 't':
		return d.literal("true", true)
	case 'f':
		return d.literal("false", false)
	case 'n':
		return d.literal("null", nil)
	default:
		if c == '-' || c >= '0' && c <= '9' {
			return d.number()
		}
		return nil, errJqSlow
	}
}

func (d *jqDecoder) literal(word string, v any) (any, error) {
	if !bytes.HasPrefix(d.data[d.pos:], []byte(word)) {
		return nil, errJqSlow
	}
	d.pos += len(word)
	return v, nil
}

// number parses a number by JSON's grammar; its value is jqNumber's.
func (d *jqDecoder) number() (any, error) {
	b := d.data
	i := d.pos
	neg := b[i] == '-'
	if neg {
		i++
	}
	if i >= len(b) || b[i] < '0' || b[i] > '9' {
		return nil, errJqSlow
	}
	digits := i
	if b[i] == '0' {
		i++
	} else {
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	integer := true
	if i < len(b) && b[i] == '.' {
		integer = false
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return nil, errJqSlow
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		integer = false
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return nil, errJqSlow
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	lit := b[d.pos:i]
	d.pos = i
	if integer && i-digits <= 18 { // fits an int64 (and Go's int here)
		n := 0
		for _, c := range b[digits:i] {
			n = n*10 + int(c-'0')
		}
		if neg {
			n = -n
		}
		return n, nil
	}
	return jqNumber(string(lit)), nil
}

// str parses a string at d.pos (at its opening quote). A string of plain
// characters is taken as it is; one with escapes or bytes that are not valid
// UTF-8 is decoded by encoding/json, which replaces what it must.
func (d *jqDecoder) str() (string, error) {
	b := d.data
	i := d.pos + 1
	plain, ascii := true, true
	for ; i < len(b); i++ {
		c := b[i]
		if c == '"' {
			break
		}
		if c < 0x20 {
			return "", errJqSlow
		}
		if c == '\\' {
			plain = false
			i++ // the escaped byte (checked by encoding/json)
			continue
		}
		if c >= utf8.RuneSelf {
			ascii = false
		}
	}
	if i >= len(b) {
		return "", errJqSlow
	}
	lit := b[d.pos : i+1]
	body := lit[1 : len(lit)-1]
	d.pos = i + 1
	if plain && (ascii || utf8.Valid(body)) {
		return string(body), nil
	}
	var s string
	if err := json.Unmarshal(lit, &s); err != nil {
		return "", errJqSlow
	}
	return s, nil
}

// record notes an object's keys in the key-order hints, once for a run of
// objects with the same keys in the same order.
func (d *jqDecoder) record(keys []string) {
	if len(keys) > 0 && len(keys) == len(d.lastKeys) {
		same := true
		for i, k := range keys {
			if d.lastKeys[i] != k {
				same = false
				break
			}
		}
		if same {
			return
		}
	}
	d.order.record(keys)
	d.lastKeys = keys
}

// slowValue decodes the next value with encoding/json's tokenizer.
func (d *jqDecoder) slowValue() (any, error) {
	tok, err := d.slow.Token()
	if err != nil {
		return nil, err
	}
	return d.fromToken(tok)
}

func (d *jqDecoder) fromToken(tok json.Token) (any, error) {
	v, err := d.fromToken1(tok)
	if err == io.EOF { // the input ends inside an array or object
		err = io.ErrUnexpectedEOF
	}
	return v, err
}

func (d *jqDecoder) fromToken1(tok json.Token) (any, error) {
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '[':
			arr := []any{}
			for d.slow.More() {
				v, err := d.slowValue()
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			if _, err := d.slow.Token(); err != nil {
				return nil, err
			}
			return arr, nil
		case '{':
			obj := map[string]any{}
			var keys []string
			for d.slow.More() {
				kt, err := d.slow.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := d.slowValue()
				if err != nil {
					return nil, err
				}
				if _, dup := obj[k]; !dup {
					keys = append(keys, k)
				}
				obj[k] = v
			}
			if _, err := d.slow.Token(); err != nil {
				return nil, err
			}
			d.record(keys)
			return obj, nil
		}
		return nil, fmt.Errorf("unexpected %v", t)
	case json.Number:
		return jqNumber(string(t)), nil
	default:
		return t, nil // string, bool, nil
	}
}
