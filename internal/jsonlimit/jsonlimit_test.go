package jsonlimit_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/desk-dev/desk/internal/jsonlimit"
)

func TestCheckDepth(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		deep bool
	}{
		{`{"a":[1,{"b":2}]}`, 3, false},
		{`{"a":[1,{"b":2}]}`, 2, true},
		{`"[[[[[["`, 1, false},
		{`["\"[[[["]`, 1, false},
		{`["\\",[[]]]`, 2, true},
		{strings.Repeat("[", 65), 64, true},
		{strings.Repeat("[", 64) + strings.Repeat("]", 64), 64, false},
	} {
		err := jsonlimit.CheckDepth([]byte(c.in), c.max)
		var de *jsonlimit.DepthError
		if got := errors.As(err, &de); got != c.deep {
			t.Errorf("CheckDepth(%q, %d) = %v, want deep=%v", c.in, c.max, err, c.deep)
		}
	}
}
