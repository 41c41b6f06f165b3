package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Options configure a Client. The zero value gives the defaults.
type Options struct {
	// HTTPClient sends the requests. Default: a client without a timeout
	// (event streams last long; bound calls with their ctx).
	HTTPClient *http.Client
	// UserAgent is sent with every request. Default "desk-go-client".
	UserAgent string
	// Header is sent with every request: the client's audit labels
	// (X-Desk-Agent, X-Desk-Session, X-Desk-Model, X-Desk-Turn), for one.
	Header http.Header
}

type headerKey struct{}

// WithHeader returns a context whose requests carry h's fields too (over
// Options.Header, and over an outer WithHeader's): labels that change per
// call, such as the model's turn.
func WithHeader(ctx context.Context, h http.Header) context.Context {
	if old, _ := ctx.Value(headerKey{}).(http.Header); old != nil {
		m := old.Clone()
		for k, vs := range h {
			m[k] = vs
		}
		h = m
	}
	return context.WithValue(ctx, headerKey{}, h)
}

// Client calls a desk server. It is safe for concurrent use.
type Client struct {
	base  *url.URL
	token string
	hc    *http.Client
	ua    string
	hdr   http.Header
}

// New returns a client for the server at baseURL ("http://127.0.0.1:7878")
// sending token as its bearer token (the admin token or a workspace token).
func New(baseURL, token string, opts Options) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil {
		return nil, fmt.Errorf("parse server url: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("parse server url: %q is not an http(s) URL with a host", baseURL)
	}
	c := &Client{base: u, token: token, hc: opts.HTTPClient, ua: opts.UserAgent, hdr: opts.Header.Clone()}
	if c.hc == nil {
		c.hc = &http.Client{}
	}
	if c.ua == "" {
		c.ua = "desk-go-client"
	}
	return c, nil
}

// Error is an error the server returned: the HTTP status and the stable code
// ("ENOENT", "not_found", "unauthorized", ...; see docs/api.md).
type Error struct {
	Status  int
	Code    string
	Message string
}

// Error returns the message with the code and status.
func (e *Error) Error() string { return fmt.Sprintf("%s (%s, HTTP %d)", e.Message, e.Code, e.Status) }

// ErrorCode returns the code of an *Error in err's chain, or "".
func ErrorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// escapePath escapes each element of a workspace path for the URL of
// …/files/PATH. A relative path stays relative (the server takes it from
// /workspace); an absolute one keeps its leading slash, escaped ("%2F"), so
// that no proxy merging slashes can make it relative.
func escapePath(p string) string {
	lead := ""
	if strings.HasPrefix(p, "/") {
		lead, p = "%2F", strings.TrimLeft(p, "/")
	}
	if p == "" {
		return lead
	}
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return lead + strings.Join(parts, "/")
}

func wsPath(ws string, rest ...string) string {
	return "/v1/workspaces/" + url.PathEscape(ws) + strings.Join(rest, "")
}

// request is one call.
type request struct {
	method string
	path   string // already escaped
	query  url.Values
	body   io.Reader
	ctype  string
	header http.Header
}

func (c *Client) do(ctx context.Context, r request) (*http.Response, error) {
	u := *c.base
	u.RawPath = c.base.Path + r.path
	p, err := url.PathUnescape(u.RawPath)
	if err != nil {
		return nil, fmt.Errorf("build url: %w", err)
	}
	u.Path = p
	if len(r.query) > 0 {
		u.RawQuery = r.query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, r.method, u.String(), r.body)
	if err != nil {
		return nil, fmt.Errorf("build request: %w", err)
	}
	for k, v := range c.hdr {
		req.Header[k] = v
	}
	if h, _ := ctx.Value(headerKey{}).(http.Header); h != nil {
		for k, v := range h {
			req.Header[k] = v
		}
	}
	for k, v := range r.header {
		req.Header[k] = v
	}
	if r.ctype != "" {
		req.Header.Set("Content-Type", r.ctype)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	req.Header.Set("User-Agent", c.ua)
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", r.method, r.path, err)
	}
	if resp.StatusCode >= 400 {
		defer resp.Body.Close()
		return nil, decodeError(resp)
	}
	return resp, nil
}

func decodeError(resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var eb ErrorBody
	if json.Unmarshal(b, &eb) == nil && eb.Error.Code != "" {
		return &Error{Status: resp.StatusCode, Code: eb.Error.Code, Message: eb.Error.Message}
	}
	return &Error{Status: resp.StatusCode, Code: "http_" + strconv.Itoa(resp.StatusCode), Message: strings.TrimSpace(string(b))}
}

// call sends a JSON request (in may be nil) and decodes a JSON response
// into out (may be nil).
func (c *Client) call(ctx context.Context, method, path string, q url.Values, in, out any) error {
	r := request{method: method, path: path, query: q}
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("encode request: %w", err)
		}
		r.body, r.ctype = bytes.NewReader(b), "application/json"
	}
	resp, err := c.do(ctx, r)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil {
		io.Copy(io.Discard, resp.Body)
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("decode %s %s response: %w", method, path, err)
	}
	return nil
}

func page(after string, limit int) url.Values {
	q := url.Values{}
	if after != "" {
		q.Set("after", after)
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	return q
}

// Health checks that the server is up (no token needed).
func (c *Client) Health(ctx context.Context) error {
	return c.call(ctx, "GET", "/healthz", nil, nil, nil)
}

// OpenAPI returns the server's OpenAPI 3 document.
func (c *Client) OpenAPI(ctx context.Context) ([]byte, error) {
	return c.raw(ctx, "/openapi.json")
}

// Metrics returns the server's Prometheus metrics in the text format (admin).
func (c *Client) Metrics(ctx context.Context) ([]byte, error) {
	return c.raw(ctx, "/metrics")
}

func (c *Client) raw(ctx context.Context, path string) ([]byte, error) {
	resp, err := c.do(ctx, request{method: "GET", path: path})
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return b, nil
}

// CreateWorkspace creates a workspace (admin).
func (c *Client) CreateWorkspace(ctx context.Context, name string) (Workspace, error) {
	var w Workspace
	err := c.call(ctx, "POST", "/v1/workspaces", nil, WorkspaceRequest{Name: name}, &w)
	return w, err
}

// CreateWorkspaceFrom creates a workspace as req says (admin) and returns
// its stream: the clone's progress, then "created" with the workspace
// (Next then returns io.EOF), or an *Error when the creation failed (no
// workspace is left). Without req.From the stream is just "created".
func (c *Client) CreateWorkspaceFrom(ctx context.Context, req WorkspaceRequest, format StreamFormat) (*Stream[WorkspaceEvent], error) {
	b, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("encode request: %w", err)
	}
	h := format.accept()
	resp, err := c.do(ctx, request{method: "POST", path: "/v1/workspaces", body: bytes.NewReader(b), ctype: "application/json", header: h})
	if err != nil {
		return nil, err
	}
	return &Stream[WorkspaceEvent]{body: resp.Body, r: bufio.NewReader(resp.Body), format: format, seq: func(e *WorkspaceEvent) uint64 { return e.Seq }}, nil
}

// ListWorkspaces returns a page of workspaces whose names sort after after
// (limit 0: the server's default page size).
func (c *Client) ListWorkspaces(ctx context.Context, after string, limit int) (WorkspaceList, error) {
	var l WorkspaceList
	err := c.call(ctx, "GET", "/v1/workspaces", page(after, limit), nil, &l)
	return l, err
}

// GetWorkspace describes a workspace.
func (c *Client) GetWorkspace(ctx context.Context, ws string) (Workspace, error) {
	var w Workspace
	err := c.call(ctx, "GET", wsPath(ws), nil, nil, &w)
	return w, err
}

// DeleteWorkspace deletes a workspace and revokes its tokens (admin).
func (c *Client) DeleteWorkspace(ctx context.Context, ws string) error {
	return c.call(ctx, "DELETE", wsPath(ws), nil, nil, nil)
}

// WorkspaceStats opens a workspace and reports on it.
func (c *Client) WorkspaceStats(ctx context.Context, ws string) (WorkspaceStats, error) {
	var s WorkspaceStats
	err := c.call(ctx, "GET", wsPath(ws, "/stats"), nil, nil, &s)
	return s, err
}

// Check verifies every invariant of workspace ws's store (admin). A store
// with problems is not an error: the report lists them.
func (c *Client) Check(ctx context.Context, ws string) (CheckReport, error) {
	var r CheckReport
	err := c.call(ctx, "POST", wsPath(ws, "/check"), nil, nil, &r)
	return r, err
}

func filePath(ws, p string) string { return wsPath(ws, "/files/", escapePath(p)) }

// Stat describes a workspace path without following a final symlink.
func (c *Client) Stat(ctx context.Context, ws, p string) (FileInfo, error) {
	var fi FileInfo
	err := c.call(ctx, "GET", filePath(ws, p), url.Values{"stat": {"1"}}, nil, &fi)
	return fi, err
}

// ReadDir returns a page of a directory's entries sorting after after.
func (c *Client) ReadDir(ctx context.Context, ws, dir, after string, limit int) (DirList, error) {
	var l DirList
	err := c.call(ctx, "GET", filePath(ws, dir), page(after, limit), nil, &l)
	return l, err
}

// Open streams a file's content; close the reader when done.
func (c *Client) Open(ctx context.Context, ws, p string) (io.ReadCloser, error) {
	return c.OpenRange(ctx, ws, p, 0, -1)
}

// OpenRange streams n bytes of a file from offset off (n < 0: to the end).
// A range starting past the end is an *Error with code "bad_range".
func (c *Client) OpenRange(ctx context.Context, ws, p string, off, n int64) (io.ReadCloser, error) {
	h := http.Header{}
	switch {
	case off == 0 && n < 0:
	case n < 0:
		h.Set("Range", fmt.Sprintf("bytes=%d-", off))
	case n == 0:
		return io.NopCloser(strings.NewReader("")), nil
	default:
		h.Set("Range", fmt.Sprintf("bytes=%d-%d", off, off+n-1))
	}
	resp, err := c.do(ctx, request{method: "GET", path: filePath(ws, p), header: h})
	if err != nil {
		return nil, err
	}
	if resp.Header.Get("X-Desk-Type") == TypeDir {
		resp.Body.Close()
		return nil, &Error{Status: http.StatusBadRequest, Code: "EISDIR", Message: "open " + p + ": is a directory"}
	}
	return resp.Body, nil
}

// ReadFile returns a file's content.
func (c *Client) ReadFile(ctx context.Context, ws, p string) ([]byte, error) {
	rc, err := c.Open(ctx, ws, p)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	return b, nil
}

// WriteOptions configure WriteFile.
type WriteOptions struct {
	Mode    fs.FileMode // permission bits; 0: 0644 for a new file
	Parents bool        // create missing parent directories
}

// WriteFile streams r into a file, replacing its content atomically.
func (c *Client) WriteFile(ctx context.Context, ws, p string, r io.Reader, o WriteOptions) (FileInfo, error) {
	q := url.Values{}
	if o.Mode != 0 {
		q.Set("mode", fmt.Sprintf("%04o", unixPerm(o.Mode)))
	}
	if o.Parents {
		q.Set("parents", "1")
	}
	if r == nil {
		r = strings.NewReader("")
	}
	resp, err := c.do(ctx, request{method: "PUT", path: filePath(ws, p), query: q, body: r, ctype: "application/octet-stream"})
	if err != nil {
		return FileInfo{}, err
	}
	defer resp.Body.Close()
	var fi FileInfo
	if err := json.NewDecoder(resp.Body).Decode(&fi); err != nil {
		return FileInfo{}, fmt.Errorf("decode write response: %w", err)
	}
	return fi, nil
}

// unixPerm converts permission bits to their Unix numbers.
func unixPerm(m fs.FileMode) uint32 {
	u := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		u |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		u |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		u |= 0o1000
	}
	return u
}

func (c *Client) fileOp(ctx context.Context, ws, p, op string, q url.Values, body any) (FileInfo, error) {
	if q == nil {
		q = url.Values{}
	}
	q.Set("op", op)
	var fi FileInfo
	err := c.call(ctx, "POST", filePath(ws, p), q, body, &fi)
	return fi, err
}

// Mkdir creates a directory (parents: with missing parents, and no error if
// it exists); mode 0 is 0755.
func (c *Client) Mkdir(ctx context.Context, ws, p string, mode fs.FileMode, parents bool) (FileInfo, error) {
	q := url.Values{}
	if mode != 0 {
		q.Set("mode", fmt.Sprintf("%04o", unixPerm(mode)))
	}
	if parents {
		q.Set("parents", "1")
	}
	return c.fileOp(ctx, ws, p, "mkdir", q, nil)
}

// Move renames from to to (replacing to unless noReplace).
func (c *Client) Move(ctx context.Context, ws, from, to string, noReplace bool) (FileInfo, error) {
	return c.fileOp(ctx, ws, from, "move", nil, MoveRequest{To: to, NoReplace: noReplace})
}

// Copy copies a file or a tree to a path that does not exist.
func (c *Client) Copy(ctx context.Context, ws, from, to string) (FileInfo, error) {
	return c.fileOp(ctx, ws, from, "copy", nil, CopyRequest{To: to})
}

// Chmod sets permission bits.
func (c *Client) Chmod(ctx context.Context, ws, p string, mode fs.FileMode) (FileInfo, error) {
	return c.fileOp(ctx, ws, p, "chmod", nil, ChmodRequest{Mode: fmt.Sprintf("%04o", unixPerm(mode))})
}

// Mknod makes a FIFO, a socket, or a character or block device at p: typ is
// TypeFIFO, TypeSocket, TypeChar or TypeBlock, device ("major:minor") only
// for devices. Such files are the kernel's to use, through a sandbox's
// mount; reading one through the API is ENXIO.
func (c *Client) Mknod(ctx context.Context, ws, p, typ string, mode fs.FileMode, device string) (FileInfo, error) {
	return c.fileOp(ctx, ws, p, "mknod", nil, MknodRequest{Type: typ, Mode: fmt.Sprintf("%04o", unixPerm(mode)), Device: device})
}

// Remove deletes a file, symlink or empty directory; recursive deletes any
// directory with its contents.
func (c *Client) Remove(ctx context.Context, ws, p string, recursive bool) error {
	q := url.Values{}
	if recursive {
		q.Set("recursive", "1")
	}
	return c.call(ctx, "DELETE", filePath(ws, p), q, nil, nil)
}

// FindOptions configure Find.
type FindOptions struct {
	Pattern string // glob relative to Path: * ? [..] {a,b} and ** for any depth
	Path    string // directory to search ("": /workspace; relative: from /workspace)
	Limit   int    // most matches (0: the server's default)
}

// Find returns paths matching a glob.
func (c *Client) Find(ctx context.Context, ws string, o FindOptions) (FindResult, error) {
	q := page("", o.Limit)
	q.Set("pattern", o.Pattern)
	if o.Path != "" {
		q.Set("path", o.Path)
	}
	var r FindResult
	err := c.call(ctx, "GET", wsPath(ws, "/find"), q, nil, &r)
	return r, err
}

// GrepOptions configure Grep.
type GrepOptions struct {
	Query      string // text, or with Regex an RE2 expression
	Regex      bool
	IgnoreCase bool
	Path       string // directory or file to search ("": /workspace; relative: from /workspace)
	Glob       string // only files matching this glob (relative to Path)
	Limit      int    // most matches per page (0: the server's default)
	// After and AfterLine resume a search: NextPath and NextLine of the
	// previous page.
	After     string
	AfterLine int
}

// Grep searches file contents; a result with NextPath set has more pages.
func (c *Client) Grep(ctx context.Context, ws string, o GrepOptions) (GrepResult, error) {
	q := page(o.After, o.Limit)
	q.Set("query", o.Query)
	if o.Regex {
		q.Set("regex", "1")
	}
	if o.IgnoreCase {
		q.Set("ignore_case", "1")
	}
	if o.Path != "" {
		q.Set("path", o.Path)
	}
	if o.Glob != "" {
		q.Set("glob", o.Glob)
	}
	if o.After != "" && o.AfterLine > 0 {
		q.Set("after_line", strconv.Itoa(o.AfterLine))
	}
	var r GrepResult
	err := c.call(ctx, "GET", wsPath(ws, "/grep"), q, nil, &r)
	return r, err
}

// Exec starts an execution and returns its record (status running).
func (c *Client) Exec(ctx context.Context, ws string, req ExecRequest) (Execution, error) {
	var r Result
	err := c.call(ctx, "POST", wsPath(ws, "/executions"), nil, req, &r)
	return r.Execution, err
}

// Run starts an execution and waits for its result.
func (c *Client) Run(ctx context.Context, ws string, req ExecRequest) (Result, error) {
	var r Result
	err := c.call(ctx, "POST", wsPath(ws, "/executions"), url.Values{"wait": {"1"}}, req, &r)
	return r, err
}

// WriteStdin streams r, to its end, as the standard input of execution id,
// started with ExecRequest.StdinStream: the program reads it as it arrives,
// whatever its size, and the call returns once r's end has reached it (or
// the execution ended first: an *Error with code "not_running"). Closing r
// early, or cancelling ctx, ends the program's stdin with an error.
func (c *Client) WriteStdin(ctx context.Context, ws, id string, r io.Reader) (StdinResult, error) {
	if r == nil {
		r = strings.NewReader("")
	}
	resp, err := c.do(ctx, request{method: "PUT", path: wsPath(ws, "/executions/", url.PathEscape(id), "/stdin"), body: r, ctype: "application/octet-stream"})
	if err != nil {
		return StdinResult{}, err
	}
	defer resp.Body.Close()
	var out StdinResult
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return StdinResult{}, fmt.Errorf("decode stdin response: %w", err)
	}
	return out, nil
}

// GetExecution returns an execution's record and kept output.
func (c *Client) GetExecution(ctx context.Context, ws, id string) (Result, error) {
	var r Result
	err := c.call(ctx, "GET", wsPath(ws, "/executions/", url.PathEscape(id)), nil, nil, &r)
	return r, err
}

// ListExecutionsOptions select execution records.
type ListExecutionsOptions struct {
	After  string
	Limit  int
	Status string // "" for all
}

// ListExecutions returns a page of execution records in id order.
func (c *Client) ListExecutions(ctx context.Context, ws string, o ListExecutionsOptions) (ExecutionList, error) {
	q := page(o.After, o.Limit)
	if o.Status != "" {
		q.Set("status", o.Status)
	}
	var l ExecutionList
	err := c.call(ctx, "GET", wsPath(ws, "/executions"), q, nil, &l)
	return l, err
}

// Kill kills a running execution with a signal ("": SIGTERM).
func (c *Client) Kill(ctx context.Context, ws, id, signal string) error {
	return c.call(ctx, "POST", wsPath(ws, "/executions/", url.PathEscape(id), "/kill"), nil, KillRequest{Signal: signal}, nil)
}

// Dispose deletes an ended execution's record and output.
func (c *Client) Dispose(ctx context.Context, ws, id string) error {
	return c.call(ctx, "DELETE", wsPath(ws, "/executions/", url.PathEscape(id)), nil, nil, nil)
}

// Changes returns up to limit changes after the cursor since.
func (c *Client) Changes(ctx context.Context, ws string, since uint64, limit int) (ChangeList, error) {
	q := page("", limit)
	q.Set("since", strconv.FormatUint(since, 10))
	var l ChangeList
	err := c.call(ctx, "GET", wsPath(ws, "/changes"), q, nil, &l)
	return l, err
}

// MintToken mints a workspace token (admin); the secret is returned only now.
func (c *Client) MintToken(ctx context.Context, req TokenRequest) (MintedToken, error) {
	var m MintedToken
	err := c.call(ctx, "POST", "/v1/tokens", nil, req, &m)
	return m, err
}

// ListTokens returns a page of tokens (admin).
func (c *Client) ListTokens(ctx context.Context, after string, limit int) (TokenList, error) {
	var l TokenList
	err := c.call(ctx, "GET", "/v1/tokens", page(after, limit), nil, &l)
	return l, err
}

// RevokeToken revokes a token (admin).
func (c *Client) RevokeToken(ctx context.Context, id string) error {
	return c.call(ctx, "DELETE", "/v1/tokens/"+url.PathEscape(id), nil, nil, nil)
}

// StreamFormat selects the wire format of a stream.
type StreamFormat int

// Stream formats.
const (
	NDJSON StreamFormat = iota // one JSON value per line
	SSE                        // Server-Sent Events
)

// accept is the request header that asks for the format.
func (f StreamFormat) accept() http.Header {
	h := http.Header{}
	if f == SSE {
		h.Set("Accept", "text/event-stream")
	} else {
		h.Set("Accept", "application/x-ndjson")
	}
	return h
}

// Stream reads a stream of T (events or changes). Next returns io.EOF when
// the server ends the stream normally and an *Error when it ends it with an
// error event. Close it when done. Not safe for concurrent use.
type Stream[T any] struct {
	body   io.ReadCloser
	r      *bufio.Reader
	format StreamFormat
	// LastID is the id of the last event read (SSE id, or the Seq).
	LastID uint64
	seq    func(*T) uint64
}

// Close ends the stream.
func (s *Stream[T]) Close() error { return s.body.Close() }

// Next returns the next value.
func (s *Stream[T]) Next() (T, error) {
	var zero T
	for {
		data, err := s.readRecord()
		if err != nil {
			return zero, err
		}
		if data == nil {
			continue
		}
		if bytes.HasPrefix(data, []byte(`{"error":`)) {
			var eb ErrorBody
			if json.Unmarshal(data, &eb) == nil && eb.Error.Code != "" {
				return zero, &Error{Status: http.StatusOK, Code: eb.Error.Code, Message: eb.Error.Message}
			}
		}
		var v T
		if err := json.Unmarshal(data, &v); err != nil {
			return zero, fmt.Errorf("decode stream: %w", err)
		}
		s.LastID = s.seq(&v)
		return v, nil
	}
}

// maxLine bounds one line of a stream (events are at most 32 KiB of output,
// base64-encoded in the worst case).
const maxLine = 1 << 20

func (s *Stream[T]) readLine() ([]byte, error) {
	var line []byte
	for {
		chunk, isPrefix, err := s.r.ReadLine()
		if err != nil {
			if errors.Is(err, io.EOF) && len(line) > 0 {
				return line, nil
			}
			return nil, err
		}
		line = append(line, chunk...)
		if len(line) > maxLine {
			return nil, fmt.Errorf("read stream: line over %d bytes", maxLine)
		}
		if !isPrefix {
			return line, nil
		}
	}
}

// readRecord returns the data of the next record (nil for a keep-alive).
func (s *Stream[T]) readRecord() ([]byte, error) {
	if s.format == NDJSON {
		line, err := s.readLine()
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			return nil, nil
		}
		return line, nil
	}
	var data []byte
	seen := false
	for {
		line, err := s.readLine()
		if err != nil {
			return nil, err
		}
		if len(line) == 0 {
			if seen {
				return data, nil
			}
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "data":
			if seen {
				data = append(data, '\n')
			}
			data = append(data, value...)
			seen = true
		case "": // comment (keep-alive)
		}
	}
}

func (c *Client) stream(ctx context.Context, path string, q url.Values, format StreamFormat) (io.ReadCloser, error) {
	h := format.accept()
	resp, err := c.do(ctx, request{method: "GET", path: path, query: q, header: h})
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}

// EventsOptions configure Events.
type EventsOptions struct {
	// From is the first event number to read (0 or 1: from the first).
	From uint64
	// Format is the wire format (default NDJSON).
	Format StreamFormat
}

// Events streams an execution's events from an event number on; the stream
// ends (io.EOF) after the exit event. To re-attach after a broken
// connection, call Events again with From = LastID+1.
func (c *Client) Events(ctx context.Context, ws, id string, o EventsOptions) (*Stream[Event], error) {
	q := url.Values{}
	if o.From > 0 {
		q.Set("from", strconv.FormatUint(o.From, 10))
	}
	body, err := c.stream(ctx, wsPath(ws, "/executions/", url.PathEscape(id), "/events"), q, o.Format)
	if err != nil {
		return nil, err
	}
	return &Stream[Event]{body: body, r: bufio.NewReader(body), format: o.Format, seq: func(e *Event) uint64 { return e.Seq }}, nil
}

// FollowChanges streams a workspace's changes after the cursor since, live,
// until ctx ends or the stream is closed. A cursor older than the server's
// journal gives an *Error with code "journal_truncated".
func (c *Client) FollowChanges(ctx context.Context, ws string, since uint64, format StreamFormat) (*Stream[Change], error) {
	q := url.Values{"follow": {"1"}, "since": {strconv.FormatUint(since, 10)}}
	body, err := c.stream(ctx, wsPath(ws, "/changes"), q, format)
	if err != nil {
		return nil, err
	}
	return &Stream[Change]{body: body, r: bufio.NewReader(body), format: format, seq: func(c *Change) uint64 { return c.Seq }}, nil
}

// Mount mounts workspace ws through FUSE on req.Dir, a directory of the
// server's own machine (admin only), and returns the mount's stream: its
// first event is "mounted" (with the mount's ID); keep-alives follow; the
// server unmounts when the stream ends (Close, ctx), and ends the stream
// with "unmounted" when the mount ended otherwise (Unmount, umount), or
// with an *Error when the server stops.
func (c *Client) Mount(ctx context.Context, ws string, req MountRequest, format StreamFormat) (*Stream[MountEvent], error) {
	b, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("encode request: %w", err)
	}
	h := format.accept()
	resp, err := c.do(ctx, request{method: "POST", path: wsPath(ws, "/mounts"), body: bytes.NewReader(b), ctype: "application/json", header: h})
	if err != nil {
		return nil, err
	}
	return &Stream[MountEvent]{body: resp.Body, r: bufio.NewReader(resp.Body), format: format, seq: func(e *MountEvent) uint64 { return e.Seq }}, nil
}

// Unmount unmounts mount id of workspace ws (made by Mount) and returns once
// it is unmounted; the mount's stream then ends with "unmounted".
func (c *Client) Unmount(ctx context.Context, ws, id string) error {
	return c.call(ctx, "DELETE", wsPath(ws, "/mounts/", url.PathEscape(id)), nil, nil, nil)
}
