package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/desk-dev/desk/internal/tools"
)

var toolsGroup = &group{
	name:    "tools",
	summary: "the agent tools: print their definitions for an LLM API, replay a scripted session",
	verbs: []groupVerb{
		{toolsSchemaSpec, runToolsSchema},
		{toolsReplaySpec, runToolsReplay},
	},
}

var toolsSchemaSpec = &cmdSpec{
	name:     "tools schema",
	synopsis: "[--format openai|anthropic|mcp|desk] [--backends ID,...] [--read-only]",
	summary:  "print the tool definitions as an LLM API takes them",
	help: `Prints a JSON array to pass as the tools of an LLM API call:
  openai     Chat Completions: {"type":"function","function":{"name","description","parameters"}}
  anthropic  Messages: {"name","description","input_schema"}
  mcp        MCP tools/list objects: {"name","title","description","inputSchema","outputSchema","annotations"}
  desk       desk's own definitions (also the output schemas and the token scopes each tool needs)
Run the calls the model makes with POST /v1/workspaces/WS/tools/NAME (docs/api.md),
or in Go with internal/tools. --backends names the backends exec's description
lists (default: shell, sandbox, js, auto); --read-only prints read, ls, find, grep.`,
	minArgs: 0, maxArgs: 0,
}

func runToolsSchema(ctx context.Context, args []string, st streams) int {
	sp := toolsSchemaSpec
	fl := sp.flags()
	format := fl.String("format", "mcp", "openai, anthropic, mcp or desk")
	backends := fl.String("backends", "", "comma-separated backend ids for exec's description")
	readOnly := fl.Bool("read-only", false, "only the read-only tools")
	if _, code, ok := sp.parse(fl, args, st); !ok {
		return code
	}
	var ids []string
	if *backends != "" {
		ids = strings.Split(*backends, ",")
	}
	defs := tools.Definitions(ids)
	if *readOnly {
		kept := defs[:0]
		for _, t := range defs {
			if tools.IsReadOnly(t.Name) {
				kept = append(kept, t)
			}
		}
		defs = kept
	}
	var b []byte
	var err error
	if *format == "desk" {
		b, err = json.MarshalIndent(defs, "", "  ")
		b = append(b, '\n')
	} else {
		b, err = tools.Encode(defs, *format)
	}
	if err != nil {
		return sp.usageError(st, fl, usagef("--format %q: want openai, anthropic, mcp or desk", *format))
	}
	st.out.Write(b)
	return exitOK
}

var toolsReplaySpec = &cmdSpec{
	name:     "tools replay",
	synopsis: "FILE --workspace NAME [--data DIR [--create] [--sandbox RUNTIME|off]] [--url URL] [--token TOKEN]",
	summary:  "replay a scripted agent session (tool calls and checks) against a workspace",
	help: `FILE is JSON: {"name": "...", "calls": [STEP, ...]} or just [STEP, ...], where
STEP is {"tool": NAME, "input": {...}, "expect": {...}, "save": {...}}:
  expect.error       the call must fail (default: succeed); expect.code: with this code
  expect.contains    substrings of the text the model sees; not_contains; regex (RE2)
  expect.structured  a subset of the structured output ({"exit_code": 0})
  save               {"VAR": "field.path"} keeps an output value; later inputs use
                     "${VAR}" (the JSON value) or ${VAR} inside a string
Each step prints "ok N TOOL" or "FAIL N TOOL: why" with the result. Exit status 0
when every check passed, 1 otherwise. No model is involved: it is a test of the
tools and the workspace, runnable by anyone. The workspace is found as for
desk mcp (a server, or --data DIR).`,
	minArgs: 1, maxArgs: 1,
}

func runToolsReplay(ctx context.Context, args []string, st streams) int {
	sp := toolsReplaySpec
	fl := sp.flags()
	wf := addWorkspaceFlags(fl, addServerFlags(fl))
	pos, code, ok := sp.parse(fl, args, st)
	if !ok {
		return code
	}
	data, err := os.ReadFile(pos[0])
	if err != nil {
		return sp.fail(st, err)
	}
	script, err := tools.ParseScript(data)
	if err != nil {
		return sp.fail(st, err)
	}
	ws, closeWS, err := wf.open(ctx, slog.New(slog.NewTextHandler(st.err, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if err != nil {
		return sp.fail(st, err)
	}
	defer closeWS()
	if script.Name != "" {
		fmt.Fprintf(st.out, "# %s\n", script.Name)
	}
	call := func(ctx context.Context, name string, in json.RawMessage) (*tools.Result, error) {
		return ws.Call(ctx, name, in, nil)
	}
	res, err := tools.Replay(ctx, script, call, st.out)
	if err != nil {
		return sp.fail(st, err)
	}
	failed := 0
	for _, r := range res {
		if len(r.Failures) > 0 {
			failed++
		}
	}
	fmt.Fprintf(st.out, "%d of %d steps passed\n", len(res)-failed, len(res))
	if failed > 0 {
		return exitError
	}
	return exitOK
}
