package jsvm

import (
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"

	"github.com/desk-dev/desk/internal/jsvm/qjs"
)

// runtimeFiles are the JavaScript half of the backend: the globals and
// built-in modules every execution gets. They are compiled once per process
// into bytecode, which each execution loads (much faster than parsing).
//
//go:embed js/*.js
var runtimeFiles embed.FS

// runtimeFileName is the file name stack traces show for the runtime's code.
const runtimeFileName = "node:internal/desk"

var (
	bytecodeOnce sync.Once
	bytecode     []byte
	bytecodeErr  error
)

// runtimeSource returns the runtime's source: the files of js/ in name
// order, which together are one function expression.
func runtimeSource() (string, error) {
	names, err := fs.Glob(runtimeFiles, "js/*.js")
	if err != nil {
		return "", fmt.Errorf("list runtime files: %w", err)
	}
	slices.Sort(names)
	var b strings.Builder
	for _, n := range names {
		src, err := runtimeFiles.ReadFile(n)
		if err != nil {
			return "", fmt.Errorf("read runtime file %s: %w", n, err)
		}
		b.Write(src)
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// runtimeBytecode returns the compiled runtime, compiling it on first use.
func runtimeBytecode() ([]byte, error) {
	bytecodeOnce.Do(func() {
		src, err := runtimeSource()
		if err != nil {
			bytecodeErr = err
			return
		}
		c, err := qjs.New(qjs.Options{})
		if err != nil {
			bytecodeErr = fmt.Errorf("compile runtime: %w", err)
			return
		}
		defer c.Close()
		bytecode, err = c.CompileScript(src, runtimeFileName)
		if err != nil {
			bytecodeErr = fmt.Errorf("compile runtime: %w", err)
		}
	})
	return bytecode, bytecodeErr
}
