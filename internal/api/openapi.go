package api

import (
	"encoding/json"
	"github.com/desk-dev/desk/internal/audit"
	"net/http"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/desk-dev/desk/client"
)

// schemaTypes are the wire types the OpenAPI document describes, by name.
var schemaTypes = map[string]any{
	"Workspace": client.Workspace{}, "WorkspaceList": client.WorkspaceList{}, "WorkspaceStats": client.WorkspaceStats{}, "CheckReport": client.CheckReport{},
	"WorkspaceRequest": client.WorkspaceRequest{}, "FileInfo": client.FileInfo{}, "DirList": client.DirList{},
	"FindResult": client.FindResult{}, "GrepResult": client.GrepResult{}, "ChangeList": client.ChangeList{},
	"Change": client.Change{}, "ExecRequest": client.ExecRequest{}, "Execution": client.Execution{},
	"Result": client.Result{}, "ExecutionList": client.ExecutionList{}, "KillRequest": client.KillRequest{},
	"TokenRequest": client.TokenRequest{}, "Token": client.Token{}, "MintedToken": client.MintedToken{},
	"TokenList": client.TokenList{}, "FileOpRequest": fileOpRequest{}, "Error": client.ErrorBody{},
	"ToolList": client.ToolList{}, "ToolResult": client.ToolResult{}, "TreeSummary": client.TreeSummary{},
	"StdinResult":  client.StdinResult{},
	"ShareRequest": client.ShareRequest{}, "Share": client.Share{}, "ShareList": client.ShareList{},
	"ArtifactRequest": client.ArtifactRequest{}, "Artifact": client.Artifact{}, "ArtifactList": client.ArtifactList{},
	"ArtifactTokenRequest": client.ArtifactTokenRequest{}, "ArtifactToken": client.ArtifactToken{}, "ArtifactTokenList": client.ArtifactTokenList{},
	"MountRequest": client.MountRequest{}, "MountEvent": client.MountEvent{},
	"PolicyRequest": client.PolicyRequest{}, "PolicyInfo": client.PolicyInfo{}, "SecretRequest": client.SecretRequest{},
	"Secret": client.Secret{}, "SecretList": client.SecretList{},
	"Rules": client.Rules{}, "RulesInfo": client.RulesInfo{}, "Limits": client.Limits{}, "ElicitAnswer": client.ElicitAnswer{}, "LimitsInfo": client.LimitsInfo{}, "ApprovalList": client.ApprovalList{}, "Approval": client.Approval{},
	"AuditList": AuditList{}, "AuditReport": audit.Report{},
	"PortList": client.PortList{}, "PortLinkRequest": client.PortLinkRequest{}, "PortLink": client.PortLink{}, "PortLinkList": client.PortLinkList{}, "ImagePullRequest": client.ImagePullRequest{}, "Image": client.Image{}, "ImageList": client.ImageList{},
	"Health": struct {
		Status string    `json:"status"`
		Time   time.Time `json:"time"`
	}{},
}

var timeType = reflect.TypeFor[time.Time]()

// schemaOf returns a JSON schema for a Go type, by its JSON encoding.
func schemaOf(t reflect.Type) map[string]any {
	if t == reflect.TypeFor[client.Event]() {
		s := schemaOf(reflect.TypeFor[struct {
			Seq          uint64       `json:"seq"`
			Time         time.Time    `json:"time"`
			Type         string       `json:"type"`
			Data         string       `json:"data,omitempty"`
			DataBase64   string       `json:"data_base64,omitempty"`
			StdoutOffset int64        `json:"stdout_offset"`
			StderrOffset int64        `json:"stderr_offset"`
			First        uint64       `json:"first,omitempty"`
			Bytes        int64        `json:"bytes,omitempty"`
			Exit         *client.Exit `json:"exit,omitempty"`
		}]())
		s["description"] = "An execution event; output that is valid UTF-8 is in data, other output in data_base64."
		return s
	}
	if t == timeType {
		return map[string]any{"type": "string", "format": "date-time"}
	}
	if t == reflect.TypeFor[json.RawMessage]() {
		return map[string]any{"description": "any JSON value"}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return schemaOf(t.Elem())
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Slice:
		return map[string]any{"type": "array", "items": schemaOf(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": schemaOf(t.Elem())}
	case reflect.Struct:
		props := map[string]any{}
		var required []string
		var add func(t reflect.Type)
		add = func(t reflect.Type) {
			for f := range t.Fields() {
				tag := f.Tag.Get("json")
				if tag == "-" || !f.IsExported() {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				if f.Anonymous && name == "" {
					add(f.Type)
					continue
				}
				if name == "" {
					name = f.Name
				}
				props[name] = schemaOf(f.Type)
				if !strings.Contains(opts, "omit") {
					required = append(required, name)
				}
			}
		}
		add(t)
		s := map[string]any{"type": "object", "properties": props}
		if len(required) > 0 {
			s["required"] = required
		}
		return s
	}
	return map[string]any{}
}

var pathParam = regexp.MustCompile(`\{([a-z]+)(\.\.\.)?\}`)

// openAPIPath turns a mux path into an OpenAPI path ({path...} becomes {path}).
func openAPIPath(p string) string { return pathParam.ReplaceAllString(p, "{$1}") }

var pathParamDesc = map[string]string{
	"ws":    "workspace name: " + "1-63 of a-z 0-9 . _ -, starting with a letter or digit",
	"path":  "workspace path (may contain slashes; no \"..\" elements): relative to /workspace, or absolute with its slash kept (files//etc/hosts, or escaped: files/%2Fetc/hosts); empty for /workspace",
	"id":    "execution, token, share or mount id",
	"name":  "tool name: read, write, edit, ls, find, grep, delete, exec or publish",
	"token": "a share link's token (its last path element)",
}

func ref(name string) map[string]any { return map[string]any{"$ref": "#/components/schemas/" + name} }

func content(schema string) map[string]any {
	switch {
	case schema == "binary":
		return map[string]any{"application/octet-stream": map[string]any{"schema": map[string]any{"type": "string", "format": "binary"}}}
	case schema == "archive":
		bin := map[string]any{"schema": map[string]any{"type": "string", "format": "binary"}}
		return map[string]any{"application/x-tar": bin, "application/gzip": bin, "application/zip": bin}
	case schema == "text":
		return map[string]any{"text/plain": map[string]any{"schema": map[string]any{"type": "string"}}}
	case schema == "object":
		return map[string]any{"application/json": map[string]any{"schema": map[string]any{"type": "object"}}}
	case strings.HasPrefix(schema, "stream:"):
		s := ref(strings.TrimPrefix(schema, "stream:"))
		return map[string]any{
			"text/event-stream":    map[string]any{"schema": map[string]any{"type": "string", "description": "SSE: id = event number, event = type, data = JSON"}},
			"application/x-ndjson": map[string]any{"schema": s},
		}
	}
	return map[string]any{"application/json": map[string]any{"schema": ref(schema)}}
}

// openAPI builds the OpenAPI 3 document from the route table.
func openAPI() map[string]any {
	paths := map[string]map[string]any{}
	for _, rt := range routes() {
		p := openAPIPath(rt.path)
		if paths[p] == nil {
			paths[p] = map[string]any{}
		}
		var params []any
		for _, m := range pathParam.FindAllStringSubmatch(rt.path, -1) {
			params = append(params, map[string]any{"name": m[1], "in": "path", "required": true,
				"description": pathParamDesc[m[1]], "schema": map[string]any{"type": "string"}})
		}
		for _, q := range rt.query {
			params = append(params, map[string]any{"name": q.name, "in": "query", "description": q.desc, "schema": map[string]any{"type": q.typ}})
		}
		if strings.HasPrefix(rt.resp, "stream:") || rt.op == "changes" {
			params = append(params, map[string]any{"name": "Last-Event-ID", "in": "header", "description": "resume a stream after this event number", "schema": map[string]any{"type": "integer"}})
		}
		if rt.op == "readFile" {
			params = append(params, map[string]any{"name": "Range", "in": "header", "description": "one byte range: bytes=A-B, bytes=A- or bytes=-N", "schema": map[string]any{"type": "string"}})
		}
		responses := map[string]any{
			"default": map[string]any{"description": "an error: {\"error\": {\"code\", \"message\"}}", "content": content("Error")},
		}
		ok := map[string]any{"description": http.StatusText(rt.status)}
		if rt.resp != "" {
			ok["content"] = content(rt.resp)
		}
		responses[strconv.Itoa(rt.status)] = ok
		switch rt.op {
		case "readFile":
			responses["206"] = map[string]any{"description": "the requested byte range", "content": content("binary")}
		case "writeFile":
			responses["201"] = map[string]any{"description": "the file was created", "content": content("FileInfo")}
		case "shell":
			responses["101"] = map[string]any{"description": "WebSocket (GET with Upgrade: websocket): binary messages are terminal bytes both ways; " +
				"text messages are JSON control messages: resize {type, rows, cols} and eof {type} from the client, " +
				"exit {type, code} and error {type, message} from the server. The " + ShellIDHeader + " header names the session."}
		case "putTree":
			responses["201"] = map[string]any{"description": "the archive was unpacked into a new directory", "content": content("TreeSummary")}
		case "fileOp":
			responses["201"] = map[string]any{"description": "mkdir or copy created an entry", "content": content("FileInfo")}
		case "changes":
			responses["200"].(map[string]any)["content"] = map[string]any{
				"application/json":     map[string]any{"schema": ref("ChangeList")},
				"text/event-stream":    map[string]any{"schema": map[string]any{"type": "string"}},
				"application/x-ndjson": map[string]any{"schema": ref("Change")},
			}
		}
		op := map[string]any{"operationId": rt.op, "summary": rt.summary, "responses": responses}
		if len(params) > 0 {
			op["parameters"] = params
		}
		if rt.access == accPublic {
			op["security"] = []any{}
		}
		if rt.body != "" {
			op["requestBody"] = map[string]any{"required": rt.body == "binary" || rt.body == "archive" || rt.body == "ExecRequest" || rt.body == "TokenRequest" || rt.body == "WorkspaceRequest" || rt.body == "MountRequest", "content": content(rt.body)}
		}
		paths[p][strings.ToLower(rt.method)] = op
	}
	schemas := map[string]any{}
	for name, v := range schemaTypes {
		schemas[name] = schemaOf(reflect.TypeOf(v))
	}
	schemas["Event"] = schemaOf(reflect.TypeFor[client.Event]())
	return map[string]any{
		"openapi": "3.0.3",
		"info": map[string]any{
			"title":       "desk API",
			"version":     "1",
			"description": "Workspaces, their files, executions and change feeds. Every request but /healthz needs Authorization: Bearer <token>. See docs/api.md.",
		},
		"paths": paths,
		"components": map[string]any{
			"schemas":         schemas,
			"securitySchemes": map[string]any{"bearer": map[string]any{"type": "http", "scheme": "bearer"}},
		},
		"security": []any{map[string]any{"bearer": []any{}}},
	}
}

var (
	openAPIOnce sync.Once
	openAPIDoc  []byte
)

// OpenAPI returns the OpenAPI 3 document of the API (what /openapi.json serves).
func OpenAPI() []byte {
	openAPIOnce.Do(func() {
		b, err := json.MarshalIndent(openAPI(), "", "  ")
		if err != nil {
			panic(err) // only maps of strings and slices: cannot fail
		}
		openAPIDoc = append(b, '\n')
	})
	return openAPIDoc
}

func (s *Server) handleOpenAPI(w http.ResponseWriter, _ *http.Request, _ *call) error {
	w.Header().Set("Content-Type", "application/json")
	w.Write(OpenAPI())
	return nil
}
