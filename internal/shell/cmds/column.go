package cmds

import (
	"bufio"
	"strconv"
	"strings"
)

func init() { Register("column", Column) }

// Column is util-linux column (2.38): without -t it fills the input lines
// into columns for a width of 80 (-c N or $COLUMNS), down the columns or
// across them with -x, padding with tabs; with -t it aligns a table whose
// cells are split on whitespace (runs merged) or on any character of -s
// (not merged), joined with -o (two spaces by default). Empty lines are
// skipped. Widths count characters.
func Column(env *Env, args []string) int {
	opts, files, ok := parseOpts(env, "column", args[1:], optSpec{
		shorts: "ts:o:c:xLR:N:H:W:E:d",
		longs: []string{"table", "separator=", "output-separator=", "output-width=", "fillrows", "keep-empty-lines",
			"table-noextreme=", "table-right=", "table-columns=", "table-hide=", "table-truncate=", "table-wrap="},
	})
	if !ok {
		return 1
	}
	table, across, keepEmpty := false, false, false
	seps := ""
	osep := "  "
	width := 80
	if v := env.Getenv("COLUMNS"); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			width = n
		}
	}
	for _, o := range opts {
		switch o.name {
		case "t", "table":
			table = true
		case "s", "separator":
			seps = o.val
		case "o", "output-separator":
			osep = o.val
		case "c", "output-width":
			n, err := strconv.Atoi(o.val)
			if err != nil || n <= 0 {
				env.Errorf("column", "invalid columns argument: '%s'", o.val)
				return 1
			}
			width = n
		case "x", "fillrows":
			across = true
		case "L", "keep-empty-lines":
			keepEmpty = true
		}
	}
	if len(files) == 0 {
		files = []string{"-"}
	}
	var lines []string
	status := 0
	for _, name := range files {
		if env.Canceled() {
			return 1
		}
		data, err := readArgLimited(env, name)
		if err != nil {
			env.Errorf("column", "%s: %s", name, Strerror(err))
			status = 1
			continue
		}
		for _, l := range splitLines(data, '\n') {
			s := string(l)
			if strings.TrimSpace(s) == "" && !(table && keepEmpty) {
				continue
			}
			lines = append(lines, s)
		}
	}
	w := bufio.NewWriterSize(env.Stdout, 32<<10)
	defer w.Flush()
	if table {
		columnTable(env, w, lines, seps, osep)
		return status
	}
	columnFill(env, w, lines, width, across)
	return status
}

// columnTable aligns the cells of lines.
func columnTable(env *Env, w *bufio.Writer, lines []string, seps, osep string) {
	rows := make([][]string, 0, len(lines))
	var widths []int
	for _, l := range lines {
		var cells []string
		if seps == "" {
			cells = strings.FieldsFunc(l, func(r rune) bool { return r == ' ' || r == '\t' })
		} else {
			cells = columnSplit(l, seps)
		}
		for i, c := range cells {
			n := runeCount([]byte(c))
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			if n > widths[i] {
				widths[i] = n
			}
		}
		rows = append(rows, cells)
	}
	for _, cells := range rows {
		if env.Canceled() {
			return
		}
		if len(cells) == 0 {
			w.WriteByte('\n')
			continue
		}
		for i := range widths {
			c := ""
			if i < len(cells) {
				c = cells[i]
			}
			w.WriteString(c)
			if i == len(widths)-1 {
				break
			}
			w.WriteString(strings.Repeat(" ", widths[i]-runeCount([]byte(c))))
			w.WriteString(osep)
		}
		w.WriteByte('\n')
	}
}

// columnSplit splits l at every character of seps, keeping empty cells.
func columnSplit(l, seps string) []string {
	var out []string
	start := 0
	for i, r := range l {
		if strings.ContainsRune(seps, r) {
			out = append(out, l[start:i])
			start = i + len(string(r))
		}
	}
	return append(out, l[start:])
}

// columnFill fills entries into columns padded with tabs, as util-linux's
// columnate_fillcols and columnate_fillrows do.
func columnFill(env *Env, w *bufio.Writer, ents []string, width int, across bool) {
	if len(ents) == 0 {
		return
	}
	maxLen := 0
	lens := make([]int, len(ents))
	for i, e := range ents {
		lens[i] = runeCount([]byte(e))
		if lens[i] > maxLen {
			maxLen = lens[i]
		}
	}
	maxLen = (maxLen + 8) &^ 7
	if maxLen > width {
		for _, e := range ents {
			w.WriteString(e)
			w.WriteByte('\n')
		}
		return
	}
	numCols := width / maxLen
	if numCols == 0 {
		numCols = 1
	}
	pad := func(chcnt, endcol int) int {
		for {
			cnt := (chcnt + 8) &^ 7
			if cnt > endcol {
				return chcnt
			}
			w.WriteByte('\t')
			chcnt = cnt
		}
	}
	if across {
		chcnt, col, endcol := 0, 0, maxLen
		for i, e := range ents {
			if env.Canceled() {
				return
			}
			w.WriteString(e)
			chcnt += lens[i]
			if i == len(ents)-1 { // the last entry: no padding after it
				if chcnt > 0 {
					w.WriteByte('\n')
				}
				return
			}
			col++
			if col == numCols {
				w.WriteByte('\n')
				chcnt, col, endcol = 0, 0, maxLen
				continue
			}
			chcnt = pad(chcnt, endcol)
			endcol += maxLen
		}
		return
	}
	numRows := len(ents) / numCols
	if len(ents)%numCols != 0 {
		numRows++
	}
	for row := 0; row < numRows; row++ {
		if env.Canceled() {
			return
		}
		endcol := maxLen
		chcnt := 0
		for base, col := row, 0; col < numCols; col++ {
			w.WriteString(ents[base])
			chcnt += lens[base]
			base += numRows
			if base >= len(ents) {
				break
			}
			chcnt = pad(chcnt, endcol)
			endcol += maxLen
		}
		w.WriteByte('\n')
	}
}
