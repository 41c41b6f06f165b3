package jsvm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	neturl "net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/desk-dev/desk/internal/jsvm/qjs"
	"github.com/desk-dev/desk/internal/run"
)

// fetchChunkBytes is the most one read of a response body hands to the
// engine (one chunk of Response.body).
const fetchChunkBytes = 64 << 10

// fetchMaxRedirects is how many redirects redirect: 'follow' follows, as
// Node's fetch.
const fetchMaxRedirects = 20

// netState is an execution's fetches in flight. Each has a goroutine that
// sends the request through run.Job.Net and then reads the response body a
// chunk at a time, when the runtime asks for one (host.fetchRead): at most
// one chunk per fetch is held outside the engine. Results come back to the
// event loop through events; pending counts the operations (a request
// waiting for its response, a read waiting for its chunk) whose event the
// loop awaits, and keeps the execution alive as a timer does.
type netState struct {
	events  chan netEvent
	reqs    map[int64]*netReq
	pending int
	wg      sync.WaitGroup
}

// netReq is one fetch in flight.
type netReq struct {
	cancel  context.CancelFunc
	reads   chan struct{} // one token per chunk asked for
	waiting bool          // an operation's event is awaited
	// headSeen is set once the response's head was delivered.
	headSeen bool
}

// netEvent is the result of one operation of a fetch.
type netEvent struct {
	id   int64
	head *fetchHead // the response's status line and headers
	data []byte     // a chunk of the body
	eof  bool       // the body has ended (after data, if any)
	err  error      // the request or the read failed
}

// fetchHead is what the runtime gets of a response before its body.
type fetchHead struct {
	Status     int         `json:"status"`
	StatusText string      `json:"statusText"`
	URL        string      `json:"url"`
	Redirected bool        `json:"redirected"`
	Headers    [][2]string `json:"headers"`
}

// fetchFailure describes a failed request or read as Node's fetch
// describes the cause of its "fetch failed" TypeError.
type fetchFailure struct {
	Message string `json:"message"`
	Code    string `json:"code,omitempty"`
	Syscall string `json:"syscall,omitempty"`
	Errno   int    `json:"errno,omitempty"`
	Address string `json:"address,omitempty"`
	Port    int    `json:"port,omitempty"`
}

func init() {
	hostFuncs["fetchStart"] = hostFetchStart
	hostFuncs["fetchRead"] = hostFetchRead
	hostFuncs["fetchAbort"] = hostFetchAbort
}

// errUnexpectedRedirect is a redirect under redirect: 'error'.
var errUnexpectedRedirect = errors.New("unexpected redirect")

// errRedirectCount is one redirect too many under redirect: 'follow'.
var errRedirectCount = errors.New("redirect count exceeded")

// hostFetchStart is host.fetchStart(id, method, url, headersJSON, body,
// redirect): it starts a request and returns undefined, or the JSON of a
// fetchFailure when the request cannot be sent at all (no network, a
// scheme other than http and https). The response comes as an event.
func hostFetchStart(x *execution, args []qjs.Value) (qjs.Value, error) {
	id, err := x.argInt(args, 0)
	if err != nil {
		return qjs.Undefined, err
	}
	method, err := x.argString(args, 1)
	if err != nil {
		return qjs.Undefined, err
	}
	rawURL, err := x.argString(args, 2)
	if err != nil {
		return qjs.Undefined, err
	}
	hjson, err := x.argString(args, 3)
	if err != nil {
		return qjs.Undefined, err
	}
	var body []byte
	if b := arg(args, 4); !b.IsNullish() {
		if body, err = x.argData(args, 4); err != nil {
			return qjs.Undefined, err
		}
	}
	redirect, err := x.argString(args, 5)
	if err != nil {
		return qjs.Undefined, err
	}
	if int64(len(body)) > x.o.MaxFetchBodyBytes {
		return qjs.Undefined, x.limit("MaxFetchBodyBytes", x.o.MaxFetchBodyBytes, "bytes of one request body")
	}
	if len(x.net.reqs) >= x.o.MaxFetches && !x.net.dropIdle() {
		return qjs.Undefined, x.limit("MaxFetches", int64(x.o.MaxFetches), "fetches in flight")
	}
	fail := func(f fetchFailure) (qjs.Value, error) {
		b, _ := json.Marshal(f)
		return x.str(string(b)), nil
	}
	u, err := neturl.Parse(rawURL)
	if err != nil {
		return fail(fetchFailure{Message: "invalid URL"})
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fail(fetchFailure{Message: "unknown scheme"})
	}
	if x.job.Net == nil {
		err := fmt.Errorf("%s %s: %w", method, u.Redacted(), run.ErrNoNetwork)
		return fail(fetchFailure{Message: err.Error(), Code: "ERR_DESK_NO_NETWORK"})
	}
	var pairs [][2]string
	if err := json.Unmarshal([]byte(hjson), &pairs); err != nil {
		return qjs.Undefined, fmt.Errorf("decode request headers: %w", err)
	}
	ctx, cancel := context.WithCancel(x.ctx)
	req, err := http.NewRequestWithContext(ctx, method, u.String(), bytes.NewReader(body))
	if err != nil {
		cancel()
		return fail(fetchFailure{Message: err.Error()})
	}
	if body == nil {
		req.Body, req.ContentLength = nil, 0
	}
	for _, p := range pairs {
		if strings.EqualFold(p[0], "host") {
			req.Host = p[1]
			continue
		}
		req.Header.Add(p[0], p[1])
	}
	for _, d := range [][2]string{{"Accept", "*/*"}, {"Accept-Language", "*"}, {"Sec-Fetch-Mode", "cors"}, {"User-Agent", "node"}} {
		if _, ok := req.Header[d[0]]; !ok {
			req.Header.Set(d[0], d[1])
		}
	}
	r := &netReq{cancel: cancel, reads: make(chan struct{}, 1), waiting: true}
	f := &fetchRequest{req: req, body: body, streamed: x.argBool(args, 6), redirect: redirect,
		client: &http.Client{Transport: x.job.Net, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	if f.streamed {
		req.ContentLength = -1 // sent chunked, as Node sends a stream
	}
	if x.net.reqs == nil {
		x.net.reqs = map[int64]*netReq{}
		x.net.events = make(chan netEvent, 16)
	}
	x.net.reqs[id] = r
	x.net.pending++
	x.net.wg.Add(1)
	go x.net.do(ctx, id, r, f)
	return qjs.Undefined, nil
}

// do sends req and then reads its response's body a chunk per token of
// r.reads, sending each result as an event, until the body ends, fails or
// ctx is cancelled (abort, the execution's end).
func (n *netState) do(ctx context.Context, id int64, r *netReq, f *fetchRequest) {
	defer n.wg.Done()
	defer r.cancel()
	send := func(ev netEvent) bool {
		ev.id = id
		select {
		case n.events <- ev:
			return true
		case <-ctx.Done():
			return false
		}
	}
	resp, redirected, err := f.send()
	if err != nil {
		send(netEvent{err: err})
		return
	}
	defer resp.Body.Close()
	head := &fetchHead{Status: resp.StatusCode, URL: resp.Request.URL.String(),
		StatusText: strings.TrimPrefix(resp.Status, strconv.Itoa(resp.StatusCode)+" "),
		Redirected: redirected}
	for k, vs := range resp.Header {
		for _, v := range vs {
			head.Headers = append(head.Headers, [2]string{strings.ToLower(k), v})
		}
	}
	if !send(netEvent{head: head}) {
		return
	}
	buf := make([]byte, fetchChunkBytes)
	for {
		select {
		case <-r.reads:
		case <-ctx.Done():
			return
		}
		k, err := resp.Body.Read(buf)
		switch {
		case k > 0:
			// The last chunk and the end come in one event when the read
			// says so (a body of known length usually does).
			if !send(netEvent{data: bytes.Clone(buf[:k]), eof: err == io.EOF}) || err == io.EOF {
				return
			}
		case err == io.EOF:
			send(netEvent{eof: true})
			return
		case err != nil:
			send(netEvent{err: err})
			return
		default:
			// A read of nothing and no error: ask again.
			r.reads <- struct{}{}
		}
	}
}

// fetchRequest is a request and how to follow its redirects.
type fetchRequest struct {
	client   *http.Client // its CheckRedirect returns every redirect
	req      *http.Request
	body     []byte
	streamed bool
	redirect string // follow, manual, error
}

// send sends the request and, under redirect: 'follow', the requests its
// redirects call for, as the Fetch standard says (HTTP-redirect fetch):
// 301 and 302 turn a POST into a GET, 303 turns anything but HEAD into a
// GET, both dropping the body; 307 and 308 send the same method and body;
// a redirect to another origin drops Authorization; at most 20.
func (f *fetchRequest) send() (*http.Response, bool, error) {
	req := f.req
	for hops := 0; ; hops++ {
		resp, err := f.client.Do(req)
		if err != nil {
			return nil, false, err
		}
		loc := resp.Header.Get("Location")
		switch resp.StatusCode {
		case 301, 302, 303, 307, 308:
		default:
			return resp, hops > 0, nil
		}
		if loc == "" || f.redirect == "manual" {
			return resp, hops > 0, nil
		}
		resp.Body.Close()
		if f.redirect == "error" {
			return nil, false, errUnexpectedRedirect
		}
		if hops >= fetchMaxRedirects {
			return nil, false, errRedirectCount
		}
		to, err := req.URL.Parse(loc)
		if err != nil || (to.Scheme != "http" && to.Scheme != "https") {
			return nil, false, fmt.Errorf("invalid redirect location %q", loc)
		}
		method, body := req.Method, f.body
		if (resp.StatusCode == 301 || resp.StatusCode == 302) && method == "POST" || resp.StatusCode == 303 && method != "HEAD" {
			method, body = "GET", nil
		}
		if body != nil && f.streamed && resp.StatusCode != 303 {
			// A stream body cannot be sent twice (undici fails the same way).
			return nil, false, errors.New("unexpected redirect")
		}
		next, err := http.NewRequestWithContext(req.Context(), method, to.String(), bytes.NewReader(body))
		if err != nil {
			return nil, false, err
		}
		if body == nil {
			next.Body, next.ContentLength = nil, 0
		}
		next.Header = req.Header.Clone()
		if body == nil {
			for _, h := range []string{"Content-Type", "Content-Length", "Content-Encoding", "Content-Language", "Content-Location"} {
				next.Header.Del(h)
			}
		}
		if to.Scheme != req.URL.Scheme || to.Host != req.URL.Host {
			next.Header.Del("Authorization")
			next.Header.Del("Cookie")
			next.Header.Del("Proxy-Authorization")
		}
		next.Host = ""
		req = next
	}
}

// hostFetchRead is host.fetchRead(id): it asks for the next chunk of the
// body, which comes as an event (data, or the end), and returns true; false
// when the fetch was dropped (see dropIdle).
func hostFetchRead(x *execution, args []qjs.Value) (qjs.Value, error) {
	id, err := x.argInt(args, 0)
	if err != nil {
		return qjs.Undefined, err
	}
	r := x.net.reqs[id]
	if r == nil {
		return qjs.Bool(false), nil
	}
	if r.waiting {
		return qjs.Bool(true), nil
	}
	r.waiting = true
	x.net.pending++
	r.reads <- struct{}{}
	return qjs.Bool(true), nil
}

// hostFetchAbort is host.fetchAbort(id): it ends the fetch (request or body
// read) at once; its events, if any, are dropped.
func hostFetchAbort(x *execution, args []qjs.Value) (qjs.Value, error) {
	id, err := x.argInt(args, 0)
	if err != nil {
		return qjs.Undefined, err
	}
	x.net.drop(id)
	return qjs.Undefined, nil
}

// drop forgets fetch id and cancels its request.
func (n *netState) drop(id int64) {
	r := n.reqs[id]
	if r == nil {
		return
	}
	r.cancel()
	if r.waiting {
		n.pending--
	}
	delete(n.reqs, id)
}

// dropIdle drops the oldest fetch whose body nobody is reading (its head
// was delivered, no read is waiting), as Node's garbage collector would
// end an abandoned response; it reports whether there was one. Reading
// that body later fails ("terminated").
func (n *netState) dropIdle() bool {
	oldest := int64(-1)
	for id, r := range n.reqs {
		if r.headSeen && !r.waiting && (oldest < 0 || id < oldest) {
			oldest = id
		}
	}
	if oldest < 0 {
		return false
	}
	n.drop(oldest)
	return true
}

// close cancels every fetch in flight and waits for their goroutines.
func (n *netState) close() {
	for id := range n.reqs {
		n.drop(id)
	}
	n.wg.Wait()
}

// deliverFetch hands ev to the runtime (internals.fetchEvent(id, kind,
// value): kind head, data, last (data and the end), end or error); events
// of fetches aborted meanwhile are dropped.
func (x *execution) deliverFetch(ev netEvent) error {
	r := x.net.reqs[ev.id]
	if r == nil {
		return nil
	}
	if r.waiting {
		r.waiting = false
		x.net.pending--
	}
	var kind string
	var val qjs.Value = qjs.Undefined
	switch {
	case ev.err != nil:
		x.net.drop(ev.id)
		kind = "error"
		b, _ := json.Marshal(describeFetchError(ev.err))
		val = x.str(string(b))
	case ev.eof && ev.data == nil:
		x.net.drop(ev.id)
		kind = "end"
	case ev.head != nil:
		r.headSeen = true
		kind = "head"
		b, err := json.Marshal(ev.head)
		if err != nil {
			return fmt.Errorf("encode response head: %w", err)
		}
		val = x.str(string(b))
	default:
		kind = "data"
		if ev.eof {
			x.net.drop(ev.id)
			kind = "last"
		}
		v, err := x.c.ArrayBuffer(ev.data)
		if err != nil {
			return err
		}
		val = v
	}
	v, err := x.callInternal("fetchEvent", qjs.Int(ev.id), x.str(kind), val)
	x.c.Free(v)
	if err != nil {
		if ex, ok := err.(*qjs.Exception); ok {
			return &uncaught{text: ex.Text}
		}
		return err
	}
	return nil
}

// describeFetchError words err as Node's fetch words the cause of a failed
// request ("connect ECONNREFUSED 127.0.0.1:8080", "getaddrinfo ENOTFOUND
// example.com").
func describeFetchError(err error) fetchFailure {
	var (
		dns   *net.DNSError
		op    *net.OpError
		errno syscall.Errno
	)
	switch {
	case errors.Is(err, errUnexpectedRedirect):
		return fetchFailure{Message: errUnexpectedRedirect.Error()}
	case errors.Is(err, errRedirectCount):
		return fetchFailure{Message: errRedirectCount.Error()}
	case errors.Is(err, run.ErrNoNetwork):
		return fetchFailure{Message: err.Error(), Code: "ERR_DESK_NO_NETWORK"}
	case errors.As(err, &dns):
		return fetchFailure{Message: "getaddrinfo ENOTFOUND " + dns.Name, Code: "ENOTFOUND", Syscall: "getaddrinfo"}
	case errors.As(err, &op) && op.Op == "dial" && errors.As(err, &errno):
		f := fetchFailure{Syscall: "connect", Errno: -int(errno)}
		switch errno {
		case syscall.ECONNREFUSED:
			f.Code = "ECONNREFUSED"
		case syscall.ETIMEDOUT:
			f.Code = "ETIMEDOUT"
		case syscall.ENETUNREACH:
			f.Code = "ENETUNREACH"
		case syscall.EHOSTUNREACH:
			f.Code = "EHOSTUNREACH"
		default:
			f.Code = strings.ToUpper(errno.Error())
		}
		if a, ok := op.Addr.(*net.TCPAddr); ok {
			f.Address, f.Port = a.IP.String(), a.Port
			f.Message = fmt.Sprintf("connect %s %s", f.Code, a)
		} else {
			f.Message = fmt.Sprintf("connect %s", f.Code)
		}
		return f
	case errors.Is(err, syscall.ECONNRESET):
		return fetchFailure{Message: "read ECONNRESET", Code: "ECONNRESET", Syscall: "read", Errno: -int(syscall.ECONNRESET)}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fetchFailure{Message: "other side closed", Code: "UND_ERR_SOCKET"}
	}
	var ue *neturl.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fetchFailure{Message: err.Error()}
}
