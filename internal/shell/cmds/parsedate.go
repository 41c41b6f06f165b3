package cmds

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// This file implements GNU date's -d STRING: the grammar of gnulib's
// parse-datetime.y (coreutils 9.1, manual chapter "Date input formats"),
// a sequence of items in any order. The parser is a hand-written
// equivalent of the LALR(1) grammar with bison's shift preference, so the
// quirks follow: "12:00 +3 hours" is 12:00 in zone UTC+3 plus one hour, a
// day of the week is ignored when a calendar date is present, and
// "2024-01-31 +1 month" overflows into March as mktime normalizes it.
// Lexing and parsing are one pass each over the input: linear time.

// Token kinds. Single characters (':', ',', '/', '@', 'T') are their own
// kinds; dtErr is a word GNU does not know.
const (
	dtEOF = iota + 256
	dtErr
	dtSNum    // signed integer: "+3", "- 3"
	dtUNum    // unsigned integer
	dtSDec    // signed decimal: "-1.5"
	dtUDec    // unsigned decimal
	dtMonth   // month name (val 1..12)
	dtDay     // day name (val 0..6)
	dtZone    // zone name (val: offset seconds east)
	dtDayZone // daylight zone name (val: standard offset)
	dtLocal   // the parse zone's own abbreviation (val: isdst)
	dtDST     // "DST"
	dtMerid   // am/pm (val merAM/merPM)
	dtYearU
	dtMonthU
	dtDayU // val: days per unit (1, 7, 14)
	dtHourU
	dtMinU
	dtSecU
	dtDayShift // tomorrow/yesterday/today/now (val: days)
	dtOrdinal  // last/this/next/first/third... (val)
	dtAgo      // ago (-1) / hence (1)
)

const (
	mer24 = iota
	merAM
	merPM
)

type dtok struct {
	kind   int
	val    int64 // integer value (signed), or table value
	digits int   // number of digits of an integer
	sec    int64 // decimal: seconds (floor)
	ns     int64 // decimal: nanoseconds in [0, 1e9)
	name   string
}

type dword struct {
	kind int
	val  int64
}

var dtMonths = map[string]dword{}

func init() {
	months := []string{"JANUARY", "FEBRUARY", "MARCH", "APRIL", "MAY", "JUNE", "JULY", "AUGUST", "SEPTEMBER",
		"OCTOBER", "NOVEMBER", "DECEMBER"}
	for i, m := range months {
		dtMonths[m] = dword{dtMonth, int64(i + 1)}
	}
	dtMonths["SEPT"] = dword{dtMonth, 9}
	for i, d := range []string{"SUNDAY", "MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY"} {
		dtMonths[d] = dword{dtDay, int64(i)}
	}
	for k, v := range map[string]int64{"TUES": 2, "WEDNES": 3, "THUR": 4, "THURS": 4} {
		dtMonths[k] = dword{dtDay, v}
	}
}

// dtAbbrev is month_and_day_table in order, for 3-letter abbreviations
// (the first entry whose first three letters match).
var dtAbbrev = []string{"JANUARY", "FEBRUARY", "MARCH", "APRIL", "MAY", "JUNE", "JULY", "AUGUST", "SEPTEMBER",
	"SEPT", "OCTOBER", "NOVEMBER", "DECEMBER", "SUNDAY", "MONDAY", "TUESDAY", "TUES", "WEDNESDAY", "WEDNES",
	"THURSDAY", "THUR", "THURS", "FRIDAY", "SATURDAY"}

var dtUniversal = map[string]int64{"GMT": 0, "UT": 0, "UTC": 0}

// dtZones is gnulib's time_zone_table (seconds east of UTC; a dtDayZone
// is an hour further east).
var dtZones = map[string]dword{
	"WET": {dtZone, 0}, "WEST": {dtDayZone, 0}, "BST": {dtDayZone, 0}, "ART": {dtZone, -3 * 3600},
	"BRT": {dtZone, -3 * 3600}, "BRST": {dtDayZone, -3 * 3600}, "NST": {dtZone, -(3*3600 + 1800)},
	"NDT": {dtDayZone, -(3*3600 + 1800)}, "AST": {dtZone, -4 * 3600}, "ADT": {dtDayZone, -4 * 3600},
	"CLT": {dtZone, -4 * 3600}, "CLST": {dtDayZone, -4 * 3600}, "EST": {dtZone, -5 * 3600},
	"EDT": {dtDayZone, -5 * 3600}, "CST": {dtZone, -6 * 3600}, "CDT": {dtDayZone, -6 * 3600},
	"MST": {dtZone, -7 * 3600}, "MDT": {dtDayZone, -7 * 3600}, "PST": {dtZone, -8 * 3600},
	"PDT": {dtDayZone, -8 * 3600}, "AKST": {dtZone, -9 * 3600}, "AKDT": {dtDayZone, -9 * 3600},
	"HST": {dtZone, -10 * 3600}, "HAST": {dtZone, -10 * 3600}, "HADT": {dtDayZone, -10 * 3600},
	"SST": {dtZone, -12 * 3600}, "WAT": {dtZone, 3600}, "CET": {dtZone, 3600}, "CEST": {dtDayZone, 3600},
	"MET": {dtZone, 3600}, "MEZ": {dtZone, 3600}, "MEST": {dtDayZone, 3600}, "MESZ": {dtDayZone, 3600},
	"EET": {dtZone, 2 * 3600}, "EEST": {dtDayZone, 2 * 3600}, "CAT": {dtZone, 2 * 3600},
	"SAST": {dtZone, 2 * 3600}, "EAT": {dtZone, 3 * 3600}, "MSK": {dtZone, 3 * 3600},
	"MSD": {dtDayZone, 3 * 3600}, "IST": {dtZone, 5*3600 + 1800}, "SGT": {dtZone, 8 * 3600},
	"KST": {dtZone, 9 * 3600}, "JST": {dtZone, 9 * 3600}, "GST": {dtZone, 10 * 3600},
	"NZST": {dtZone, 12 * 3600}, "NZDT": {dtDayZone, 12 * 3600},
}

var dtUnits = map[string]dword{"YEAR": {dtYearU, 1}, "MONTH": {dtMonthU, 1}, "FORTNIGHT": {dtDayU, 14},
	"WEEK": {dtDayU, 7}, "DAY": {dtDayU, 1}, "HOUR": {dtHourU, 1}, "MINUTE": {dtMinU, 1}, "MIN": {dtMinU, 1},
	"SECOND": {dtSecU, 1}, "SEC": {dtSecU, 1}}

var dtRelative = map[string]dword{"TOMORROW": {dtDayShift, 1}, "YESTERDAY": {dtDayShift, -1},
	"TODAY": {dtDayShift, 0}, "NOW": {dtDayShift, 0}, "LAST": {dtOrdinal, -1}, "THIS": {dtOrdinal, 0},
	"NEXT": {dtOrdinal, 1}, "FIRST": {dtOrdinal, 1}, "THIRD": {dtOrdinal, 3}, "FOURTH": {dtOrdinal, 4},
	"FIFTH": {dtOrdinal, 5}, "SIXTH": {dtOrdinal, 6}, "SEVENTH": {dtOrdinal, 7}, "EIGHTH": {dtOrdinal, 8},
	"NINTH": {dtOrdinal, 9}, "TENTH": {dtOrdinal, 10}, "ELEVENTH": {dtOrdinal, 11},
	"TWELFTH": {dtOrdinal, 12}, "AGO": {dtAgo, -1}, "HENCE": {dtAgo, 1}}

// localZone is one of the parse zone's own abbreviations.
type localZone struct {
	name  string
	isdst bool
	off   int
}

type dateParser struct {
	toks  []dtok
	i     int
	local []localZone

	year                      int64
	yearDigits                int
	month, day, hour, min     int64
	sec, ns                   int64
	meridian                  int
	timeZone                  int64
	localIsDST                bool
	dayOrdinal, dayNumber     int64
	relYear, relMonth, relDay int64
	relHour, relMin, relSec   int64
	relNS                     int64
	tsSec, tsNS               int64
	relsSeen                  bool
	times, dates, days, dsts  int
	zones, localZones         int
	overflow                  bool
}

func (p *dateParser) lookupZone(w string) (dword, bool) {
	if v, ok := dtUniversal[w]; ok {
		return dword{dtZone, v}, true
	}
	for _, z := range p.local {
		if z.name == w {
			v := int64(0)
			if z.isdst {
				v = 1
			}
			return dword{dtLocal, v}, true
		}
	}
	z, ok := dtZones[w]
	return z, ok
}

// lookupWord is gnulib's lookup_word: w is upper case.
func (p *dateParser) lookupWord(w string) (dword, bool) {
	switch w {
	case "AM", "A.M.":
		return dword{dtMerid, merAM}, true
	case "PM", "P.M.":
		return dword{dtMerid, merPM}, true
	}
	if len(w) == 3 || (len(w) == 4 && w[3] == '.') {
		for _, n := range dtAbbrev {
			if n[:3] == w[:3] {
				return dtMonths[n], true
			}
		}
	} else if v, ok := dtMonths[w]; ok {
		return v, true
	}
	if v, ok := p.lookupZone(w); ok {
		return v, true
	}
	if w == "DST" {
		return dword{dtDST, 0}, true
	}
	if v, ok := dtUnits[w]; ok {
		return v, true
	}
	if strings.HasSuffix(w, "S") {
		if v, ok := dtUnits[w[:len(w)-1]]; ok {
			return v, true
		}
	}
	if v, ok := dtRelative[w]; ok {
		return v, true
	}
	if len(w) == 1 {
		c := w[0]
		switch {
		case c == 'T':
			return dword{'T', 0}, true
		case c == 'Z':
			return dword{dtZone, 0}, true
		case c >= 'A' && c <= 'I':
			return dword{dtZone, int64(c-'A'+1) * 3600}, true
		case c >= 'K' && c <= 'M':
			return dword{dtZone, int64(c-'K'+10) * 3600}, true
		case c >= 'N' && c <= 'Y':
			return dword{dtZone, -int64(c-'N'+1) * 3600}, true
		}
	}
	if strings.Contains(w, ".") {
		if v, ok := p.lookupZone(strings.ReplaceAll(w, ".", "")); ok {
			return v, true
		}
	}
	return dword{}, false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isCSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// lex splits s into tokens as gnulib's yylex; false on an unknown word or
// an integer that overflows.
func (p *dateParser) lex(s string) bool {
	i := 0
	for {
		for i < len(s) && isCSpace(s[i]) {
			i++
		}
		if i == len(s) {
			p.toks = append(p.toks, dtok{kind: dtEOF})
			return true
		}
		c := s[i]
		switch {
		case isDigit(c) || c == '-' || c == '+':
			sign := 0
			if c == '-' || c == '+' {
				sign = 1
				if c == '-' {
					sign = -1
				}
				i++
				for i < len(s) && isCSpace(s[i]) {
					i++
				}
				if i == len(s) || !isDigit(s[i]) {
					continue // a lone sign is skipped
				}
			}
			start := i
			var v uint64
			for i < len(s) && isDigit(s[i]) {
				if v > (math.MaxInt64-9)/10 {
					return false
				}
				v = v*10 + uint64(s[i]-'0')
				i++
			}
			val := int64(v)
			if sign < 0 {
				val = -val
			}
			if i+1 < len(s) && (s[i] == '.' || s[i] == ',') && isDigit(s[i+1]) {
				i++
				ns := int64(0)
				for d := 0; d < 9; d++ {
					ns *= 10
					if i < len(s) && isDigit(s[i]) {
						ns += int64(s[i] - '0')
						i++
					}
				}
				if sign < 0 {
					for ; i < len(s) && isDigit(s[i]); i++ {
						if s[i] != '0' {
							ns++
							break
						}
					}
				}
				for i < len(s) && isDigit(s[i]) {
					i++
				}
				sec := val
				if sign < 0 && ns != 0 {
					sec--
					ns = 1e9 - ns
				}
				k := dtUDec
				if sign != 0 {
					k = dtSDec
				}
				p.toks = append(p.toks, dtok{kind: k, sec: sec, ns: ns})
				continue
			}
			k := dtUNum
			if sign != 0 {
				k = dtSNum
			}
			p.toks = append(p.toks, dtok{kind: k, val: val, digits: i - start})
		case isAlpha(c):
			var b strings.Builder
			for i < len(s) && (isAlpha(s[i]) || s[i] == '.') {
				if b.Len() < 19 {
					b.WriteByte(s[i])
				}
				i++
			}
			w, ok := p.lookupWord(strings.ToUpper(b.String()))
			if !ok {
				return false
			}
			p.toks = append(p.toks, dtok{kind: w.kind, val: w.val, name: strings.ToUpper(b.String())})
		case c == '(':
			depth := 0
			for {
				if i == len(s) {
					p.toks = append(p.toks, dtok{kind: dtEOF})
					return true
				}
				switch s[i] {
				case '(':
					depth++
				case ')':
					depth--
				}
				i++
				if depth == 0 {
					break
				}
			}
		default:
			p.toks = append(p.toks, dtok{kind: int(c)})
			i++
		}
	}
}

func (p *dateParser) peek(n int) dtok {
	if p.i+n < len(p.toks) {
		return p.toks[p.i+n]
	}
	return dtok{kind: dtEOF}
}

func (p *dateParser) next() dtok {
	t := p.peek(0)
	if p.i < len(p.toks) {
		p.i++
	}
	return t
}

func isUnit(k int) bool { return k >= dtYearU && k <= dtSecU }

// rel is one relative item's amounts.
type relTime struct{ year, month, day, hour, min, sec, ns int64 }

func mulOK(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	c := a * b
	if c/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		return 0, false
	}
	return c, true
}

func addOK(a, b int64) (int64, bool) {
	c := a + b
	if (c > a) != (b > 0) {
		return 0, false
	}
	return c, true
}

// relunit builds a relative item from a count n and the unit token u.
func relunit(n int64, u dtok) (relTime, bool) {
	var r relTime
	switch u.kind {
	case dtYearU:
		r.year = n
	case dtMonthU:
		r.month = n
	case dtDayU:
		v, ok := mulOK(n, u.val)
		if !ok {
			return r, false
		}
		r.day = v
	case dtHourU:
		r.hour = n
	case dtMinU:
		r.min = n
	case dtSecU:
		r.sec = n
	}
	return r, true
}

func (p *dateParser) applyRel(r relTime, factor int64) bool {
	add := func(dst *int64, v int64) {
		if factor < 0 {
			if v == math.MinInt64 {
				p.overflow = true
				return
			}
			v = -v
		}
		s, ok := addOK(*dst, v)
		if !ok {
			p.overflow = true
		}
		*dst = s
	}
	add(&p.relNS, r.ns)
	if !fitsInt32(p.relNS) { // gnulib's relative_time.ns is an int
		p.overflow = true
	}
	add(&p.relSec, r.sec)
	add(&p.relMin, r.min)
	add(&p.relHour, r.hour)
	add(&p.relDay, r.day)
	add(&p.relMonth, r.month)
	add(&p.relYear, r.year)
	p.relsSeen = true
	return !p.overflow
}

// zoneHHMM is time_zone_hhmm: s the signed number, mm the minutes after a
// colon or -1.
func (p *dateParser) zoneHHMM(s dtok, mm int64) bool {
	v := s.val
	if s.digits <= 2 && mm < 0 {
		v *= 100
	}
	var n int64
	if mm < 0 {
		n = (v/100)*60 + v%100
	} else {
		if mm > 1<<40 || v > 1<<40 || v < -(1<<40) {
			return false
		}
		n = v * 60
		if s.val < 0 {
			n -= mm
		} else {
			n += mm
		}
	}
	if n < -24*60 || n > 24*60 {
		return false
	}
	p.timeZone = n * 60
	return true
}

// oColonMinutes parses an optional ":MM"; -1 when absent.
func (p *dateParser) oColonMinutes() (int64, bool) {
	if p.peek(0).kind != ':' {
		return -1, true
	}
	p.next()
	t := p.next()
	if t.kind != dtUNum {
		return 0, false
	}
	return t.val, true
}

// zoneOffset parses tSNUMBER o_colon_minutes (the current token is a
// tSNUMBER).
func (p *dateParser) zoneOffset() bool {
	s := p.next()
	mm, ok := p.oColonMinutes()
	if !ok {
		return false
	}
	p.zones++
	return p.zoneHHMM(s, mm)
}

// unsignedSeconds parses the seconds of hh:mm:ss.
func (p *dateParser) unsignedSeconds() bool {
	t := p.next()
	switch t.kind {
	case dtUDec:
		p.sec, p.ns = t.sec, t.ns
	case dtUNum:
		p.sec, p.ns = t.val, 0
	default:
		return false
	}
	return true
}

// clock parses what follows "H :" — MM [: SS] — and then an am/pm (when
// merOK) or an optional zone offset.
func (p *dateParser) clock(h int64, merOK bool) bool {
	m := p.next()
	if m.kind != dtUNum {
		return false
	}
	p.hour, p.min, p.sec, p.ns = h, m.val, 0, 0
	if p.peek(0).kind == ':' {
		p.next()
		if !p.unsignedSeconds() {
			return false
		}
	}
	p.meridian = mer24
	switch k := p.peek(0).kind; {
	case k == dtMerid && merOK:
		p.meridian = int(p.next().val)
	case k == dtSNum:
		return p.zoneOffset()
	}
	return true
}

// isoTime parses iso_8601_time after 'T'.
func (p *dateParser) isoTime() bool {
	h := p.next()
	if h.kind != dtUNum {
		return false
	}
	switch p.peek(0).kind {
	case ':':
		p.next()
		return p.clock(h.val, false)
	case dtSNum:
		p.hour, p.min, p.sec, p.ns, p.meridian = h.val, 0, 0, 0, mer24
		return p.zoneOffset()
	}
	return false
}

// digitsToDateTime is digits_to_date_time: a bare number.
func (p *dateParser) digitsToDateTime(t dtok) {
	if p.dates > 0 && p.yearDigits == 0 && !p.relsSeen && (p.times > 0 || t.digits > 2) {
		p.year, p.yearDigits = t.val, t.digits
		return
	}
	if t.digits > 4 {
		p.dates++
		p.day = t.val % 100
		p.month = (t.val / 100) % 100
		p.year = t.val / 10000
		p.yearDigits = t.digits - 4
		return
	}
	p.times++
	if t.digits <= 2 {
		p.hour, p.min = t.val, 0
	} else {
		p.hour, p.min = t.val/100, t.val%100
	}
	p.sec, p.ns, p.meridian = 0, 0, mer24
}

// relItem parses an optional "ago"/"hence" after relative item r.
func (p *dateParser) relItem(r relTime, agoOK bool) bool {
	f := int64(1)
	if agoOK && p.peek(0).kind == dtAgo {
		f = p.next().val
	}
	return p.applyRel(r, f)
}

// item parses one item of the grammar.
func (p *dateParser) item() bool {
	t := p.next()
	switch t.kind {
	case dtUNum:
		n := p.peek(0)
		switch {
		case n.kind == ':':
			p.next()
			if !p.clock(t.val, true) {
				return false
			}
			p.times++
		case n.kind == dtMerid:
			p.next()
			p.hour, p.min, p.sec, p.ns, p.meridian = t.val, 0, 0, 0, int(n.val)
			p.times++
		case n.kind == dtSNum:
			n2 := p.peek(1)
			switch {
			case n2.kind == dtSNum:
				p.next()
				p.next()
				p.year, p.yearDigits = t.val, t.digits
				p.month, p.day = -n.val, -n2.val
				if p.peek(0).kind == 'T' {
					p.next()
					if !p.isoTime() {
						return false
					}
					p.times++
				}
				p.dates++
			case isUnit(n2.kind):
				p.next()
				p.next()
				p.digitsToDateTime(t)
				r, ok := relunit(n.val, n2)
				return ok && p.applyRel(r, 1)
			default:
				p.hour, p.min, p.sec, p.ns, p.meridian = t.val, 0, 0, 0, mer24
				if !p.zoneOffset() {
					return false
				}
				p.times++
			}
		case n.kind == dtDay:
			p.next()
			p.dayOrdinal, p.dayNumber = t.val, n.val
			p.days++
		case n.kind == dtMonth:
			p.next()
			p.day, p.month = t.val, n.val
			switch y := p.peek(0); y.kind {
			case dtUNum:
				p.next()
				p.year, p.yearDigits = y.val, y.digits
			case dtSNum:
				p.next()
				p.year, p.yearDigits = -y.val, y.digits
			}
			p.dates++
		case n.kind == '/':
			p.next()
			d := p.next()
			if d.kind != dtUNum {
				return false
			}
			if p.peek(0).kind == '/' {
				p.next()
				y := p.next()
				if y.kind != dtUNum {
					return false
				}
				if t.digits >= 4 {
					p.year, p.yearDigits, p.month, p.day = t.val, t.digits, d.val, y.val
				} else {
					p.month, p.day, p.year, p.yearDigits = t.val, d.val, y.val, y.digits
				}
			} else {
				p.month, p.day = t.val, d.val
			}
			p.dates++
		case isUnit(n.kind):
			p.next()
			r, ok := relunit(t.val, n)
			return ok && p.relItem(r, true)
		default:
			p.digitsToDateTime(t)
		}
	case dtUDec, dtSDec:
		u := p.next()
		if u.kind != dtSecU {
			return false
		}
		return p.relItem(relTime{sec: t.sec, ns: t.ns}, true)
	case dtSNum:
		u := p.next()
		if !isUnit(u.kind) {
			return false
		}
		r, ok := relunit(t.val, u)
		return ok && p.relItem(r, true)
	case dtMonth:
		n := p.next()
		switch n.kind {
		case dtSNum:
			y := p.next()
			if y.kind != dtSNum {
				return false
			}
			p.month, p.day, p.year, p.yearDigits = t.val, -n.val, -y.val, y.digits
		case dtUNum:
			p.month, p.day = t.val, n.val
			if p.peek(0).kind == ',' {
				p.next()
				y := p.next()
				if y.kind != dtUNum {
					return false
				}
				p.year, p.yearDigits = y.val, y.digits
			}
		default:
			return false
		}
		p.dates++
	case dtDay:
		if p.peek(0).kind == ',' {
			p.next()
		}
		p.dayOrdinal, p.dayNumber = 0, t.val
		p.days++
	case dtOrdinal:
		n := p.next()
		switch {
		case n.kind == dtDay:
			p.dayOrdinal, p.dayNumber = t.val, n.val
			p.days++
		case isUnit(n.kind):
			r, ok := relunit(t.val, n)
			return ok && p.relItem(r, true)
		default:
			return false
		}
	case dtYearU, dtMonthU, dtDayU, dtHourU, dtMinU, dtSecU:
		r, _ := relunit(1, t)
		if t.kind == dtDayU {
			r.day = t.val
		}
		return p.relItem(r, true)
	case dtDayShift:
		return p.applyRel(relTime{day: t.val}, 1)
	case dtZone, 'T':
		z := t.val
		if t.kind == 'T' {
			z = -7 * 3600
		}
		p.zones++
		p.timeZone = z
		switch n := p.peek(0); {
		case n.kind == dtSNum && isUnit(p.peek(1).kind):
			p.next()
			r, ok := relunit(n.val, p.next())
			return ok && p.applyRel(r, 1)
		case t.kind == 'T':
			return n.kind != dtSNum
		case n.kind == dtSNum:
			s := p.next()
			mm, ok := p.oColonMinutes()
			if !ok || !p.zoneHHMM(s, mm) {
				return false
			}
			p.timeZone += z
		case n.kind == dtDST:
			p.next()
			p.timeZone = z + 3600
		}
	case dtDayZone:
		p.zones++
		p.timeZone = t.val + 3600
	case dtLocal:
		p.localZones++
		p.localIsDST = t.val == 1
		if p.peek(0).kind == dtDST {
			p.next()
			p.localIsDST = true
			p.dsts++
		}
	default:
		return false
	}
	return true
}

// parseTZPrefix strips a leading TZ="..." (with \\ and \" escapes) from
// s and returns the zone it names.
func parseTZPrefix(s string) (string, *time.Location, bool) {
	if !strings.HasPrefix(s, `TZ="`) {
		return s, nil, true
	}
	var b strings.Builder
	for i := 4; i < len(s); i++ {
		c := s[i]
		if c == '\\' {
			i++
			if i == len(s) || (s[i] != '\\' && s[i] != '"') {
				return s, nil, true
			}
			b.WriteByte(s[i])
			continue
		}
		if c == '"' {
			return s[i+1:], loadTZ(b.String()), true
		}
		b.WriteByte(c)
	}
	return s, nil, true
}

// loadTZ resolves a TZ value as glibc does for the common cases: a zone
// name, or a POSIX "NAME[+-]hh[:mm]" without daylight rules; anything
// else is UTC.
func loadTZ(tz string) *time.Location {
	tz = strings.TrimPrefix(tz, ":")
	if tz == "" {
		return time.UTC
	}
	if l, err := time.LoadLocation(tz); err == nil {
		return l
	}
	i := 0
	if strings.HasPrefix(tz, "<") {
		if j := strings.IndexByte(tz, '>'); j > 0 {
			i = j + 1
		}
	} else {
		for i < len(tz) && isAlpha(tz[i]) {
			i++
		}
	}
	name, rest := tz[:i], tz[i:]
	if len(name) < 3 || rest == "" {
		return time.UTC
	}
	sign := 1
	if rest[0] == '+' || rest[0] == '-' {
		if rest[0] == '-' {
			sign = -1
		}
		rest = rest[1:]
	}
	parts := strings.Split(rest, ":")
	off := 0
	for k, mul := range []int{3600, 60, 1} {
		if k >= len(parts) {
			break
		}
		n, err := strconv.Atoi(parts[k])
		if err != nil || n < 0 || n > 167 {
			return time.UTC
		}
		off += n * mul
	}
	if len(parts) > 3 {
		return time.UTC
	}
	return time.FixedZone(strings.Trim(name, "<>"), -sign*off)
}

// parseDate parses a date string as GNU date -d: now is the current time,
// loc the zone of the parse (TZ, or UTC under -u).
func parseDate(s string, now time.Time, loc *time.Location) (time.Time, bool) {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	rest, tzl, _ := parseTZPrefix(s)
	if tzl != nil {
		loc, s = tzl, rest
	}
	now = now.In(loc)
	p := &dateParser{}
	// The zone's own abbreviations: now and the next three quarters.
	name, off := now.Zone()
	p.local = append(p.local, localZone{name, now.IsDST(), off})
	for q := 1; q <= 3; q++ {
		pt := now.Add(time.Duration(q) * 90 * 24 * time.Hour)
		if pt.IsDST() != now.IsDST() {
			n, o := pt.Zone()
			p.local = append(p.local, localZone{n, pt.IsDST(), o})
			break
		}
	}
	if !p.lex(s) {
		return now, false
	}
	p.year, p.month, p.day = int64(now.Year()), int64(now.Month()), int64(now.Day())
	p.hour, p.min, p.sec, p.ns = int64(now.Hour()), int64(now.Minute()), int64(now.Second()), int64(now.Nanosecond())
	if p.peek(0).kind == '@' {
		p.next()
		t := p.next()
		switch t.kind {
		case dtSNum, dtUNum:
			p.tsSec, p.tsNS = t.val, 0
		case dtSDec, dtUDec:
			p.tsSec, p.tsNS = t.sec, t.ns
		default:
			return now, false
		}
		if p.peek(0).kind != dtEOF || p.tsSec > 1<<56 || p.tsSec < -(1<<56) {
			return now, false
		}
		return time.Unix(p.tsSec, p.tsNS), true
	}
	for p.peek(0).kind != dtEOF {
		if !p.item() {
			return now, false
		}
	}
	return p.resolve(now, loc)
}

func fitsInt32(v int64) bool { return v >= math.MinInt32 && v <= math.MaxInt32 }

// resolve is parse_datetime_body after yyparse: combine the items.
func (p *dateParser) resolve(now time.Time, loc *time.Location) (time.Time, bool) {
	if 1 < (p.times | p.dates | p.days | p.dsts | (p.localZones + p.zones)) {
		return now, false
	}
	year := p.year
	if year >= 0 && p.yearDigits == 2 {
		if year < 69 {
			year += 2000
		} else {
			year += 1900
		}
	}
	var h, mi, sec, ns int64
	if p.times > 0 || (p.relsSeen && p.dates == 0 && p.days == 0) {
		h = p.hour
		switch p.meridian {
		case mer24:
			if h < 0 || h >= 24 {
				return now, false
			}
		case merAM, merPM:
			switch {
			case h > 0 && h < 12:
				if p.meridian == merPM {
					h += 12
				}
			case h == 12:
				if p.meridian == merAM {
					h = 0
				}
			default:
				return now, false
			}
		}
		mi, sec, ns = p.min, p.sec, p.ns
	}
	if !fitsInt32(year-1900) || !fitsInt32(p.month-1) || !fitsInt32(p.day) || !fitsInt32(mi) || !fitsInt32(sec) {
		return now, false
	}
	mon := time.Month(p.month)
	same := func(t time.Time) bool {
		return int64(t.Year()) == year && t.Month() == mon && int64(t.Day()) == p.day && int64(t.Hour()) == h &&
			int64(t.Minute()) == mi && int64(t.Second()) == sec
	}
	var t time.Time
	if p.localZones > 0 {
		off := 0
		for _, z := range p.local {
			if z.isdst == p.localIsDST {
				off = z.off
				break
			}
		}
		wall := time.Date(int(year), mon, int(p.day), int(h), int(mi), int(sec), 0, time.UTC)
		t = wall.Add(-time.Duration(off) * time.Second).In(loc)
	} else {
		t = time.Date(int(year), mon, int(p.day), int(h), int(mi), int(sec), 0, loc)
	}
	if !same(t) {
		if p.zones == 0 {
			return now, false
		}
		loc = time.FixedZone("", int(p.timeZone))
		t = time.Date(int(year), mon, int(p.day), int(h), int(mi), int(sec), 0, loc)
		if !same(t) {
			return now, false
		}
	}
	if p.days > 0 && p.dates == 0 {
		wday := int64(t.Weekday())
		ord := p.dayOrdinal
		if ord > 0 && wday != p.dayNumber {
			ord--
		}
		incr, ok := mulOK(ord, 7)
		if ok {
			incr, ok = addOK(incr, (p.dayNumber-wday+7)%7)
		}
		if !ok || incr > 1<<40 || incr < -(1<<40) {
			return now, false
		}
		t = time.Date(t.Year(), t.Month(), t.Day()+int(incr), t.Hour(), t.Minute(), t.Second(), 0, loc)
	}
	if p.relYear|p.relMonth|p.relDay != 0 {
		y, m, d := int64(t.Year())+p.relYear, int64(t.Month())+p.relMonth, int64(t.Day())+p.relDay
		if !fitsInt32(y-1900) || !fitsInt32(m) || !fitsInt32(d) {
			return now, false
		}
		t = time.Date(int(y), time.Month(m), int(d), int(h), int(mi), int(sec), 0, loc)
		if !fitsInt32(int64(t.Year()) - 1900) {
			return now, false
		}
	}
	start := t.Unix()
	if p.zones > 0 {
		_, off := t.Zone()
		start -= p.timeZone - int64(off)
	}
	sumNS := ns + p.relNS
	normNS := (sumNS%1e9 + 1e9) % 1e9
	d4 := (sumNS - normNS) / 1e9
	for _, d := range []int64{p.relHour * 3600, p.relMin * 60, p.relSec, d4} {
		if p.relHour > 1<<40 || p.relHour < -(1<<40) || p.relMin > 1<<50 || p.relMin < -(1<<50) {
			return now, false
		}
		var ok bool
		if start, ok = addOK(start, d); !ok {
			return now, false
		}
	}
	if start > 1<<56 || start < -(1<<56) {
		return now, false
	}
	return time.Unix(start, normNS), true
}
