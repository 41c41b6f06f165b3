package cmds

// More shared helpers of the file commands (find, stat, tree, du, ...):
// fnmatch(3) without FNM_PATHNAME, locale-aware quoting for findutils'
// diagnostics, and reading a directory with cancellation.

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/desk-dev/desk/internal/vfs"
)

// fuFnmatch reports whether name matches the shell pattern as fnmatch(3)
// does with no flags (find -name, -path, tree -I): '*' and '?' match any
// character including '/' and a leading '.', '[...]' classes (with '!' or
// '^' negation, ranges and [:alpha:]-style classes), '\' quotes the next
// character. fold makes the match case-insensitive (FNM_CASEFOLD).
func fuFnmatch(pattern, name string, fold bool) bool {
	if fold {
		pattern, name = strings.ToLower(pattern), strings.ToLower(name)
	}
	return fuFnmatchAt(pattern, name, 0)
}

func fuFnmatchAt(p, s string, depth int) bool {
	if depth > 64 {
		return false
	}
	for len(p) > 0 {
		switch p[0] {
		case '*':
			for len(p) > 0 && p[0] == '*' {
				p = p[1:]
			}
			if p == "" {
				return true
			}
			for i := 0; i <= len(s); {
				if fuFnmatchAt(p, s[i:], depth+1) {
					return true
				}
				if i == len(s) {
					break
				}
				_, n := utf8.DecodeRuneInString(s[i:])
				i += n
			}
			return false
		case '?':
			if s == "" {
				return false
			}
			_, n := utf8.DecodeRuneInString(s)
			p, s = p[1:], s[n:]
		case '[':
			if s == "" {
				return false
			}
			r, n := utf8.DecodeRuneInString(s)
			ok, plen := fuMatchClass(p, r)
			if plen == 0 { // no closing ']': a literal '['
				if s[0] != '[' {
					return false
				}
				p, s = p[1:], s[1:]
				continue
			}
			if !ok {
				return false
			}
			p, s = p[plen:], s[n:]
		case '\\':
			if len(p) > 1 {
				p = p[1:]
			}
			fallthrough
		default:
			pr, pn := utf8.DecodeRuneInString(p)
			if s == "" {
				return false
			}
			sr, sn := utf8.DecodeRuneInString(s)
			if pr != sr {
				return false
			}
			p, s = p[pn:], s[sn:]
		}
	}
	return s == ""
}

// fuMatchClass matches r against the bracket expression at the start of p
// and returns whether it matched and the expression's length (0 when it is
// not closed).
func fuMatchClass(p string, r rune) (bool, int) {
	i := 1
	neg := false
	if i < len(p) && (p[i] == '!' || p[i] == '^') {
		neg = true
		i++
	}
	matched := false
	first := true
	for i < len(p) {
		if p[i] == ']' && !first {
			return matched != neg, i + 1
		}
		first = false
		if p[i] == '[' && i+1 < len(p) && p[i+1] == ':' {
			if end := strings.Index(p[i+2:], ":]"); end >= 0 {
				if fuCharClass(p[i+2:i+2+end], r) {
					matched = true
				}
				i += 2 + end + 2
				continue
			}
		}
		c, n := utf8.DecodeRuneInString(p[i:])
		if c == '\\' && i+1 < len(p) {
			i++
			c, n = utf8.DecodeRuneInString(p[i:])
		}
		i += n
		if i+1 < len(p) && p[i] == '-' && p[i+1] != ']' {
			hi, hn := utf8.DecodeRuneInString(p[i+1:])
			if hi == '\\' && i+2 < len(p) {
				hi, hn = utf8.DecodeRuneInString(p[i+2:])
				hn++
			}
			if c <= r && r <= hi {
				matched = true
			}
			i += 1 + hn
			continue
		}
		if c == r {
			matched = true
		}
	}
	return false, 0
}

func fuCharClass(name string, r rune) bool {
	switch name {
	case "alpha":
		return unicode.IsLetter(r)
	case "digit":
		return r >= '0' && r <= '9'
	case "alnum":
		return unicode.IsLetter(r) || unicode.IsDigit(r)
	case "upper":
		return unicode.IsUpper(r)
	case "lower":
		return unicode.IsLower(r)
	case "space":
		return unicode.IsSpace(r)
	case "blank":
		return r == ' ' || r == '\t'
	case "punct":
		return r < 0x80 && unicode.IsPunct(r) || r < 0x80 && unicode.IsSymbol(r)
	case "print":
		return unicode.IsPrint(r)
	case "graph":
		return unicode.IsPrint(r) && r != ' '
	case "cntrl":
		return unicode.IsControl(r)
	case "xdigit":
		return strings.ContainsRune("0123456789abcdefABCDEF", r)
	}
	return false
}

// fuReadDir lists a directory (name order), stopping when the command is
// cancelled.
func fuReadDir(env *Env, p string) ([]vfs.DirEntry, error) {
	var all []vfs.DirEntry
	after := ""
	for {
		if err := env.Ctx.Err(); err != nil {
			return nil, err
		}
		page, err := env.FS.ReadDirPage(env.Ctx, p, after, 1024)
		if err != nil {
			return nil, err
		}
		all = append(all, page...)
		if len(page) < 1024 {
			return all, nil
		}
		after = page[len(page)-1].Name
	}
}

// fuBlocks is a file's 512-byte blocks as ext4 reports them: the store
// gives directories no blocks, ext4 gives them their size (4096 a page).
func fuBlocks(a vfs.Attr) int64 {
	if a.IsDir() && a.Blocks == 0 {
		return (a.Size + 511) / 512
	}
	return a.Blocks
}
