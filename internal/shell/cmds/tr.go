package cmds

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

func init() { Register("tr", Tr) }

// Tr translates, squeezes (-s) or deletes (-d) bytes of stdin to stdout, as
// GNU tr: sets take ranges (a-z), classes ([:lower:] [:upper:] [:digit:]
// [:space:] [:alpha:] [:alnum:] [:punct:] [:blank:] [:cntrl:] [:graph:]
// [:print:] [:xdigit:]), escapes (\n \t \\ \NNN), [c*n] and [c*] repeats in
// SET2 and [=c=]; -c complements SET1, -t truncates SET1. Like GNU tr it
// works on bytes. It streams.
func Tr(env *Env, args []string) int {
	opts, ops, ok := parseOpts(env, "tr", args[1:], optSpec{shorts: "cCdst",
		longs: []string{"complement", "delete", "squeeze-repeats", "truncate-set1"}})
	if !ok {
		return 1
	}
	var comp, del, squeeze, trunc bool
	for _, o := range opts {
		switch o.name {
		case "c", "C", "complement":
			comp = true
		case "d", "delete":
			del = true
		case "s", "squeeze-repeats":
			squeeze = true
		case "t", "truncate-set1":
			trunc = true
		}
	}
	need := 2
	if del && !squeeze || !del && squeeze && len(ops) < 2 {
		need = 1
	}
	if len(ops) == 0 {
		tryHelp(env, "tr", "missing operand")
		return 1
	}
	if len(ops) < need {
		if del && squeeze {
			env.Errorf("tr", "missing operand after %s", quote(env, ops[0]))
			fmt.Fprintln(env.Stderr, "Two strings must be given when both deleting and squeezing repeats.")
		} else {
			env.Errorf("tr", "missing operand after %s", quote(env, ops[0]))
			fmt.Fprintln(env.Stderr, "Two strings must be given when translating.")
		}
		tryHelp(env, "tr", "")
		return 1
	}
	if len(ops) > need {
		env.Errorf("tr", "extra operand %s", quote(env, ops[need]))
		if need == 1 && del {
			fmt.Fprintln(env.Stderr, "Only one string may be given when deleting without squeezing repeats.")
		}
		tryHelp(env, "tr", "")
		return 1
	}
	set1, _, err := expandTrSet(env, ops[0], false)
	if err != "" {
		env.Errorf("tr", "%s", err)
		return 1
	}
	if comp {
		var in [256]bool
		for _, c := range set1 {
			in[c] = true
		}
		set1 = set1[:0]
		for c := 0; c < 256; c++ {
			if !in[c] {
				set1 = append(set1, byte(c))
			}
		}
	}
	var set2 []byte
	if len(ops) > 1 {
		var fill int
		set2, fill, err = expandTrSet(env, ops[1], true)
		if err != "" {
			env.Errorf("tr", "%s", err)
			return 1
		}
		if fill >= 0 && !del {
			// [c*] fills SET2 up to the length of SET1.
			if missing := len(set1) - (len(set2) - 1); missing > 0 {
				rep := make([]byte, 0, len(set2)+missing)
				rep = append(rep, set2[:fill]...)
				for i := 0; i < missing; i++ {
					rep = append(rep, set2[fill])
				}
				set2 = append(rep, set2[fill+1:]...)
			} else {
				set2 = append(set2[:fill], set2[fill+1:]...)
			}
		}
	}
	var delSet, sqSet [256]bool
	var xlat [256]byte
	for i := range xlat {
		xlat[i] = byte(i)
	}
	translate := !del && len(set2) > 0
	switch {
	case del:
		for _, c := range set1 {
			delSet[c] = true
		}
		if squeeze {
			for _, c := range set2 {
				sqSet[c] = true
			}
		}
	case translate:
		if trunc && len(set1) > len(set2) {
			set1 = set1[:len(set2)]
		}
		if len(set2) == 0 {
			env.Errorf("tr", "when not truncating set1, string2 must be non-empty")
			return 1
		}
		for i, c := range set1 {
			j := i
			if j >= len(set2) {
				j = len(set2) - 1
			}
			xlat[c] = set2[j]
		}
		if squeeze {
			for _, c := range set2 {
				sqSet[c] = true
			}
		}
	default: // squeeze only
		for _, c := range set1 {
			sqSet[c] = true
		}
	}
	br := bufio.NewReaderSize(ctxReader{env, env.Stdin}, 32<<10)
	w := bufio.NewWriterSize(env.Stdout, 32<<10)
	defer w.Flush()
	buf := make([]byte, 32<<10)
	last := -1
	for {
		n, rerr := br.Read(buf)
		for _, c := range buf[:n] {
			if delSet[c] {
				continue
			}
			c = xlat[c]
			if sqSet[c] && int(c) == last {
				continue
			}
			last = int(c)
			w.WriteByte(c)
		}
		if rerr == io.EOF {
			return 0
		}
		if rerr != nil {
			w.Flush()
			if !isCanceled(env, rerr) {
				env.Errorf("tr", "read error: %s", Strerror(rerr))
			}
			return 1
		}
	}
}

var trClasses = map[string]func(c byte) bool{
	"lower": func(c byte) bool { return c >= 'a' && c <= 'z' },
	"upper": func(c byte) bool { return c >= 'A' && c <= 'Z' },
	"digit": func(c byte) bool { return c >= '0' && c <= '9' },
	"alpha": func(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' },
	"alnum": func(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' },
	"space": func(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' },
	"blank": func(c byte) bool { return c == ' ' || c == '\t' },
	"punct": func(c byte) bool {
		return c > ' ' && c < 0x7f && !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9')
	},
	"cntrl":  func(c byte) bool { return c < ' ' || c == 0x7f },
	"graph":  func(c byte) bool { return c > ' ' && c < 0x7f },
	"print":  func(c byte) bool { return c >= ' ' && c < 0x7f },
	"xdigit": func(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' },
}

// expandTrSet expands a tr SET into its bytes. In SET2, fill is the index of
// a [c*] construct (to be repeated up to SET1's length), else -1.
func expandTrSet(env *Env, s string, set2 bool) (out []byte, fill int, msg string) {
	fill = -1
	// Unescape into bytes, marking which are literal (escaped) so that '['
	// and '-' from escapes are not operators.
	type tok struct {
		c   byte
		lit bool
	}
	var toks []tok
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			toks = append(toks, tok{c, false})
			continue
		}
		i++
		switch e := s[i]; e {
		case 'n':
			toks = append(toks, tok{'\n', true})
		case 't':
			toks = append(toks, tok{'\t', true})
		case 'r':
			toks = append(toks, tok{'\r', true})
		case 'a':
			toks = append(toks, tok{7, true})
		case 'b':
			toks = append(toks, tok{8, true})
		case 'f':
			toks = append(toks, tok{12, true})
		case 'v':
			toks = append(toks, tok{11, true})
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			v, _ := strconv.ParseUint(s[i:j], 8, 16)
			if v > 255 {
				j--
				v, _ = strconv.ParseUint(s[i:j], 8, 16)
			}
			toks = append(toks, tok{byte(v), true})
			i = j - 1
		default:
			toks = append(toks, tok{e, true})
		}
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.c == '[' && !t.lit && i+1 < len(toks) {
			// [:class:], [=c=], [c*n]
			rest := make([]byte, 0, len(toks)-i)
			for _, x := range toks[i:] {
				rest = append(rest, x.c)
			}
			r := string(rest)
			if strings.HasPrefix(r, "[:") {
				if end := strings.Index(r[2:], ":]"); end >= 0 {
					name := r[2 : 2+end]
					f, ok := trClasses[name]
					if !ok {
						return nil, -1, "invalid character class " + quote(env, name)
					}
					for c := 0; c < 256; c++ {
						if f(byte(c)) {
							out = append(out, byte(c))
						}
					}
					i += 2 + end + 1
					continue
				}
			}
			if strings.HasPrefix(r, "[=") && len(r) >= 5 && r[3:5] == "=]" {
				out = append(out, r[2])
				i += 4
				continue
			}
			if len(r) >= 4 && r[2] == '*' {
				if end := strings.IndexByte(r[3:], ']'); end >= 0 {
					if !set2 {
						return nil, -1, "the [c*] repeat construct may not appear in string1"
					}
					cnt := r[3 : 3+end]
					if cnt == "" {
						fill = len(out)
						out = append(out, r[1])
					} else {
						base := 10
						if cnt[0] == '0' {
							base = 8
						}
						n, err := strconv.ParseUint(cnt, base, 31)
						if err != nil {
							return nil, -1, "invalid repeat count " + quote(env, cnt) + " in [c*n] construct"
						}
						if n == 0 {
							fill = len(out)
							out = append(out, r[1])
						}
						for k := uint64(0); k < n; k++ {
							out = append(out, r[1])
						}
					}
					i += 3 + end
					continue
				}
			}
		}
		if i+2 < len(toks) && toks[i+1].c == '-' && !toks[i+1].lit {
			lo, hi := t.c, toks[i+2].c
			if hi < lo {
				return nil, -1, fmt.Sprintf("range-endpoints of '%c-%c' are in reverse collating sequence order", lo, hi)
			}
			for c := int(lo); c <= int(hi); c++ {
				out = append(out, byte(c))
			}
			i += 2
			continue
		}
		out = append(out, t.c)
	}
	return out, fill, ""
}
