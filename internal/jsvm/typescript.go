package jsvm

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/desk-dev/desk/internal/jsvm/qjs"
	"github.com/evanw/esbuild/pkg/api"
)

// TypeScript: .ts and .mts modules (and a main module that is TypeScript)
// have their types stripped by esbuild's transform before the engine sees
// them. esbuild's source map is kept, reduced to a line and column table,
// so that the stacks printed for an uncaught error point at the TypeScript
// file's lines (mapStack). There is no type checking.

func init() {
	// host.mapStack(s) is s with TypeScript modules' positions mapped.
	hostFuncs["mapStack"] = func(x *execution, args []qjs.Value) (qjs.Value, error) {
		s, err := x.argString(args, 0)
		if err != nil || len(x.tsMaps) == 0 {
			return x.c.Dup(arg(args, 0)), err
		}
		return x.c.String(x.mapStack(s))
	}
}

// isTypeScript reports whether name is a TypeScript module by its extension.
func isTypeScript(name string) bool {
	switch path.Ext(name) {
	case ".ts", ".mts":
		return true
	}
	return false
}

// tsTarget is the language level esbuild writes: what the engine runs
// (ES2022: class fields, top-level await), so that decorators and newer
// syntax are lowered.
const tsTarget = api.ES2022

// stripTypes returns src, TypeScript, as JavaScript, with its position
// table; name is the file name errors show.
func stripTypes(src, name string) (string, *posMap, error) {
	r := api.Transform(src, api.TransformOptions{
		Loader:         api.LoaderTS,
		Format:         api.FormatESModule,
		Target:         tsTarget,
		Sourcefile:     name,
		Sourcemap:      api.SourceMapExternal,
		SourcesContent: api.SourcesContentExclude,
		LogLevel:       api.LogLevelSilent,
		TsconfigRaw:    `{"compilerOptions":{"experimentalDecorators":false}}`,
	})
	if len(r.Errors) > 0 {
		m := r.Errors[0]
		if l := m.Location; l != nil {
			return "", nil, fmt.Errorf("%s:%d:%d: %s", name, l.Line, l.Column+1, m.Text)
		}
		return "", nil, fmt.Errorf("%s: %s", name, m.Text)
	}
	pm, err := parsePosMap(r.Map)
	if err != nil {
		return "", nil, fmt.Errorf("read source map of %s: %w", name, err)
	}
	return string(r.Code), pm, nil
}

// posMap maps positions in the JavaScript esbuild wrote to the TypeScript
// source: for each generated line (0-based), its segments sorted by column.
type posMap struct {
	lines [][]segment
}

// segment is one mapping: generated column → source line and column
// (0-based).
type segment struct{ genCol, line, col int }

// parsePosMap decodes a source map's "mappings" (base64 VLQ).
func parsePosMap(raw []byte) (*posMap, error) {
	var sm struct {
		Mappings string `json:"mappings"`
	}
	if err := json.Unmarshal(raw, &sm); err != nil {
		return nil, err
	}
	pm := &posMap{}
	var srcLine, srcCol, src, name int
	for _, lineText := range strings.Split(sm.Mappings, ";") {
		var segs []segment
		genCol := 0
		for _, seg := range strings.Split(lineText, ",") {
			if seg == "" {
				continue
			}
			vals, err := decodeVLQ(seg)
			if err != nil {
				return nil, err
			}
			genCol += vals[0]
			if len(vals) >= 4 {
				src += vals[1]
				srcLine += vals[2]
				srcCol += vals[3]
				if len(vals) >= 5 {
					name += vals[4]
				}
				segs = append(segs, segment{genCol, srcLine, srcCol})
			}
		}
		sort.Slice(segs, func(i, j int) bool { return segs[i].genCol < segs[j].genCol })
		pm.lines = append(pm.lines, segs)
	}
	return pm, nil
}

// decodeVLQ decodes one segment's values.
func decodeVLQ(s string) ([]int, error) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	var out []int
	shift, acc := 0, 0
	for i := 0; i < len(s); i++ {
		d := strings.IndexByte(alphabet, s[i])
		if d < 0 {
			return nil, fmt.Errorf("bad VLQ digit %q", s[i])
		}
		acc += (d & 31) << shift
		if d&32 != 0 {
			shift += 5
			continue
		}
		v := acc >> 1
		if acc&1 != 0 {
			v = -v
		}
		out = append(out, v)
		shift, acc = 0, 0
	}
	return out, nil
}

// lookup maps a generated line and column (1-based, as stacks print them)
// to the source's (1-based).
func (pm *posMap) lookup(line, col int) (int, int, bool) {
	if line < 1 || line > len(pm.lines) {
		return 0, 0, false
	}
	segs := pm.lines[line-1]
	i := sort.Search(len(segs), func(i int) bool { return segs[i].genCol > col-1 }) - 1
	if i < 0 {
		if len(segs) == 0 {
			return 0, 0, false
		}
		i = 0
	}
	s := segs[i]
	return s.line + 1, s.col + 1 + (col - 1 - s.genCol), true
}

// stackPos finds "NAME:LINE:COL" in a printed stack.
var stackPos = regexp.MustCompile(`([^\s()]+):(\d+):(\d+)`)

// mapStack rewrites the positions of TypeScript modules in a printed stack
// (or error text) to the TypeScript file's lines and columns.
func (x *execution) mapStack(s string) string {
	if len(x.tsMaps) == 0 {
		return s
	}
	return stackPos.ReplaceAllStringFunc(s, func(m string) string {
		sub := stackPos.FindStringSubmatch(m)
		pm := x.tsMaps[sub[1]]
		if pm == nil {
			return m
		}
		line, _ := strconv.Atoi(sub[2])
		col, _ := strconv.Atoi(sub[3])
		l, c, ok := pm.lookup(line, col)
		if !ok {
			return m
		}
		return fmt.Sprintf("%s:%d:%d", sub[1], l, max(c, 1))
	})
}
