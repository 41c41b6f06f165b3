package jsvm

import (
	"fmt"
	"strings"
	"time"
	_ "time/tzdata" // Intl time zones do not depend on the host's zoneinfo

	"golang.org/x/text/collate"
	"golang.org/x/text/feature/plural"
	"golang.org/x/text/language"

	"github.com/desk-dev/desk/internal/jsvm/qjs"
)

// The host half of Intl (js/93_intl.js): plural rules and collation from
// golang.org/x/text's CLDR data, and time zones from Go's database
// (embedded: results do not depend on the host).

func init() {
	hostFuncs["intlPlural"] = hostIntlPlural
	hostFuncs["intlCollate"] = hostIntlCollate
	hostFuncs["intlZone"] = hostIntlZone
}

// collatorKey names a collator by its locale and options.
type collatorKey struct {
	locale, sensitivity string
	numeric             bool
}

// hostIntlPlural is host.intlPlural(locale, ordinal, i, v, w, f, t) → the
// plural category.
func hostIntlPlural(x *execution, args []qjs.Value) (qjs.Value, error) {
	loc, err := x.argString(args, 0)
	if err != nil {
		return qjs.Undefined, err
	}
	var ops [5]int
	for k := range ops {
		n, err := x.argInt(args, 2+k)
		if err != nil {
			return qjs.Undefined, err
		}
		ops[k] = int(n)
	}
	rules := plural.Cardinal
	if x.argBool(args, 1) {
		rules = plural.Ordinal
	}
	tag, _ := language.Parse(loc)
	form := rules.MatchPlural(tag, ops[0], ops[1], ops[2], ops[3], ops[4])
	name := map[plural.Form]string{plural.Zero: "zero", plural.One: "one", plural.Two: "two", plural.Few: "few", plural.Many: "many"}[form]
	if name == "" {
		name = "other"
	}
	return x.c.String(name)
}

// hostIntlCollate is host.intlCollate(locale, sensitivity, numeric, a, b)
// → -1, 0 or 1.
func hostIntlCollate(x *execution, args []qjs.Value) (qjs.Value, error) {
	loc, err := x.argString(args, 0)
	if err != nil {
		return qjs.Undefined, err
	}
	sens, err := x.argString(args, 1)
	if err != nil {
		return qjs.Undefined, err
	}
	key := collatorKey{loc, sens, x.argBool(args, 2)}
	c := x.collators[key]
	if c == nil {
		if len(x.collators) >= 64 {
			clear(x.collators)
		}
		tag, _ := language.Parse(loc)
		var opts []collate.Option
		switch sens {
		case "base":
			opts = append(opts, collate.IgnoreCase, collate.IgnoreDiacritics)
		case "accent":
			opts = append(opts, collate.IgnoreCase)
		case "case":
			opts = append(opts, collate.IgnoreDiacritics)
		}
		if key.numeric {
			opts = append(opts, collate.Numeric)
		}
		c = collate.New(tag, opts...)
		x.collators[key] = c
	}
	a, err := x.argString(args, 3)
	if err != nil {
		return qjs.Undefined, err
	}
	b, err := x.argString(args, 4)
	if err != nil {
		return qjs.Undefined, err
	}
	return qjs.Int(int64(c.CompareString(a, b))), nil
}

// hostIntlZone is host.intlZone(zone, ms) → [canonical name, offset in
// minutes, abbreviation] of the time zone at the instant ms, or a
// RangeError for an unknown zone.
func hostIntlZone(x *execution, args []qjs.Value) (qjs.Value, error) {
	zone, err := x.argString(args, 0)
	if err != nil {
		return qjs.Undefined, err
	}
	ms, err := x.argFloat(args, 1)
	if err != nil {
		return qjs.Undefined, err
	}
	loc, lerr := time.LoadLocation(zone)
	if lerr != nil || zone == "" || zone == "Local" || strings.HasPrefix(zone, "/") {
		return qjs.Undefined, x.jsError("RangeError", "", fmt.Sprintf("Invalid time zone specified: %s", zone), nil, true)
	}
	t := time.UnixMilli(int64(ms)).In(loc)
	abbr, off := t.Zone()
	name, _ := x.c.String(loc.String())
	ab, _ := x.c.String(abbr)
	return x.array(name, qjs.Int(int64(off/60)), ab), nil
}
