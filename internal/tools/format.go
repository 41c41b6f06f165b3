package tools

import (
	"encoding/json"
	"fmt"
)

// Formats Encode knows: the shapes LLM APIs and MCP take tool definitions in.
const (
	// FormatOpenAI is the OpenAI Chat Completions "tools" array:
	// {"type":"function","function":{"name","description","parameters"}}.
	FormatOpenAI = "openai"
	// FormatAnthropic is the Anthropic Messages "tools" array:
	// {"name","description","input_schema"}.
	FormatAnthropic = "anthropic"
	// FormatMCP is MCP's tools/list Tool objects: {"name","title",
	// "description","inputSchema","outputSchema","annotations"}.
	FormatMCP = "mcp"
)

// Encode returns defs as a JSON array in one of the formats, indented, for
// someone calling an LLM API directly to pass through.
func Encode(defs []Tool, format string) ([]byte, error) {
	out := make([]any, 0, len(defs))
	for _, t := range defs {
		switch format {
		case FormatOpenAI:
			out = append(out, map[string]any{"type": "function", "function": map[string]any{
				"name": t.Name, "description": t.Description, "parameters": t.InputSchema,
			}})
		case FormatAnthropic:
			out = append(out, map[string]any{"name": t.Name, "description": t.Description, "input_schema": t.InputSchema})
		case FormatMCP:
			out = append(out, map[string]any{
				"name": t.Name, "title": t.Title, "description": t.Description,
				"inputSchema": t.InputSchema, "outputSchema": t.OutputSchema,
				"annotations": map[string]any{
					"title": t.Title, "readOnlyHint": t.ReadOnly, "destructiveHint": t.Destructive,
					"idempotentHint": t.Idempotent, "openWorldHint": false,
				},
			})
		default:
			return nil, fmt.Errorf("encode tools: unknown format %q (want %s, %s or %s)", format, FormatOpenAI, FormatAnthropic, FormatMCP)
		}
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode tools: %w", err)
	}
	return append(b, '\n'), nil
}
