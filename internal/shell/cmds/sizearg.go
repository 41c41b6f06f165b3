package cmds

import (
	"math"
	"strings"
)

// sizeArgErr is gnulib xstrtol's verdict on a number argument.
type sizeArgErr int

const (
	sizeArgOK       sizeArgErr = iota
	sizeArgInvalid             // not a number, or a suffix that is not one
	sizeArgOverflow            // a number past int64 (saturated)
)

// gnuSizeArg parses s as gnulib's xstrtoimax does in base 10 with the
// suffix letters valid (a '0' among them allows the second suffix: "KB",
// a power of 1000, and "KiB", of 1024): leading blanks and a sign, digits
// (none with a valid suffix letter means 1: "K" is 1024), then one
// multiplier suffix. Past int64 the value saturates and the verdict is
// sizeArgOverflow, unless the suffix is invalid too.
func gnuSizeArg(s, valid string) (int64, sizeArgErr) {
	i := 0
	for i < len(s) && strings.IndexByte(" \t\n\v\f\r", s[i]) >= 0 {
		i++
	}
	neg := false
	j := i
	if j < len(s) && (s[j] == '+' || s[j] == '-') {
		neg = s[j] == '-'
		j++
	}
	start := j
	var v int64
	over := false
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		d := int64(s[j] - '0')
		if !over {
			if neg {
				if v < (math.MinInt64+d)/10 {
					over = true
				} else {
					v = v*10 - d
				}
			} else if v > (math.MaxInt64-d)/10 {
				over = true
			} else {
				v = v*10 + d
			}
		}
		j++
	}
	if over {
		v = math.MaxInt64
		if neg {
			v = math.MinInt64
		}
	}
	rest := s[j:]
	if j == start {
		// No digits: a valid suffix alone is 1 of it (strtol consumed
		// nothing, blanks and sign included).
		rest = s
		if rest == "" || strings.IndexByte(valid, rest[0]) < 0 {
			return 0, sizeArgInvalid
		}
		v, over = 1, false
	}
	verdict := sizeArgOK
	if over {
		verdict = sizeArgOverflow
	}
	if rest == "" {
		return v, verdict
	}
	if strings.IndexByte(valid, rest[0]) < 0 {
		return v, sizeArgInvalid
	}
	base, n := int64(1024), 1
	power := strings.IndexByte("KMGTPEZY", upperASCII(rest[0])) + 1
	switch rest[0] {
	case 'E', 'G', 'g', 'k', 'K', 'M', 'm', 'P', 'T', 't', 'Y', 'Z':
		if strings.IndexByte(valid, '0') >= 0 && len(rest) > 1 {
			switch {
			case rest[1] == 'i' && len(rest) > 2 && rest[2] == 'B':
				n += 2
			case rest[1] == 'B' || rest[1] == 'D':
				base, n = 1000, 2
			}
		}
	}
	mul := func(m int64) {
		switch {
		case v > 0 && v > math.MaxInt64/m:
			v, verdict = math.MaxInt64, sizeArgOverflow
		case v < 0 && v < math.MinInt64/m:
			v, verdict = math.MinInt64, sizeArgOverflow
		default:
			v *= m
		}
	}
	switch rest[0] {
	case 'b':
		mul(512)
	case 'B':
		mul(1024)
	case 'c':
	case 'w':
		mul(2)
	case 'E', 'G', 'g', 'k', 'K', 'M', 'm', 'P', 'T', 't', 'Y', 'Z':
		for range power {
			mul(base)
		}
	default:
		return v, sizeArgInvalid
	}
	if len(rest) > n {
		return v, sizeArgInvalid
	}
	return v, verdict
}

func upperASCII(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}
