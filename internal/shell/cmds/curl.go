package cmds

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

func init() { Register("curl", Curl) }

// curlVersion is the curl whose behaviour this one follows.
const curlVersion = "7.88.1"

// Exit statuses of curl (its CURLcode values) that this curl gives.
const (
	curlUnsupported  = 1
	curlUsage        = 2
	curlBadURL       = 3
	curlResolve      = 6
	curlConnect      = 7
	curlHTTPError    = 22
	curlWriteError   = 23
	curlReadError    = 26
	curlOutOfMemory  = 27
	curlTimeout      = 28
	curlTooManyHops  = 47
	curlEmptyReply   = 52
	curlSendError    = 55
	curlRecvError    = 56
	curlBadEncoding  = 61
	curlDefaultHops  = 50
	curlTryHelp      = "curl: try 'curl --help' or 'curl --manual' for more information"
	curlAcceptCoding = "deflate, gzip"
)

// curlOpts are curl's options.
type curlOpts struct {
	silent, showError, fail, failBody, location, head, include, verbose, get, compressed bool
	method                                                                               string
	headers                                                                              []string
	data                                                                                 []string
	hasData, json                                                                        bool
	upload                                                                               string
	writeOut                                                                             string
	user, agent, referer                                                                 *string
	maxTime                                                                              time.Duration
	maxRedirs                                                                            int
	urls                                                                                 []string
	outputs                                                                              []string // "" for -O
	forms                                                                                []curlForm
	remoteAll                                                                            bool
}

// curlValueOpts are the short options that take a value.
const curlValueOpts = "oXHduAewmTbcCEFKrxyzY"

// curlForm is one -F (or --form-string) argument.
type curlForm struct {
	arg    string
	string bool // --form-string: no @, < or ;type= processing
}

// curlLongs maps each long option to its short form, or to itself when it
// has none; curlLongValue lists those that take a value.
var curlLongs = map[string]string{
	"silent": "s", "show-error": "S", "fail": "f", "location": "L", "output": "o", "remote-name": "O",
	"request": "X", "header": "H", "data": "d", "data-ascii": "d", "head": "I", "include": "i",
	"write-out": "w", "user": "u", "user-agent": "A", "referer": "e", "insecure": "k", "max-time": "m",
	"get": "G", "upload-file": "T", "verbose": "v", "url": "url", "data-binary": "data-binary",
	"data-raw": "data-raw", "data-urlencode": "data-urlencode", "fail-with-body": "fail-with-body",
	"compressed": "compressed", "max-redirs": "max-redirs", "connect-timeout": "connect-timeout",
	"json": "json", "remote-name-all": "remote-name-all", "no-buffer": "N", "globoff": "g",
	"retry": "retry", "http1.1": "http1.1", "no-progress-meter": "no-progress-meter",
	"progress-bar": "#", "create-dirs": "create-dirs", "form": "F", "form-string": "form-string",
}

var curlLongValue = map[string]bool{
	"url": true, "data-binary": true, "data-raw": true, "data-urlencode": true, "max-redirs": true,
	"connect-timeout": true, "json": true, "retry": true, "form-string": true,
}

// Curl is curl, in process: HTTP and HTTPS requests through Env.Net (the
// execution's network, where the egress policy is enforced), with the
// options agents use and curl's exit statuses. See the package
// documentation for the options and the differences.
func Curl(env *Env, args []string) int {
	o := curlOpts{maxRedirs: curlDefaultHops}
	if code, ok := o.parse(env, args[1:]); !ok {
		return code
	}
	if len(o.urls) == 0 {
		fmt.Fprintln(env.Stderr, "curl: no URL specified!")
		fmt.Fprintln(env.Stderr, curlTryHelp)
		return curlUsage
	}
	status := 0
	for i, u := range o.urls {
		out, remote := "-", o.remoteAll
		if i < len(o.outputs) {
			out, remote = o.outputs[i], o.outputs[i] == ""
		}
		if code := o.transfer(env, u, out, remote); code != 0 {
			status = code
		}
	}
	return status
}

// usage reports a bad command line as curl does.
func (o *curlOpts) usage(env *Env, format string, a ...any) (int, bool) {
	fmt.Fprintf(env.Stderr, "curl: "+format+"\n", a...)
	fmt.Fprintln(env.Stderr, curlTryHelp)
	return curlUsage, false
}

// parse reads the command line.
func (o *curlOpts) parse(env *Env, args []string) (int, bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			o.urls = append(o.urls, args[i+1:]...)
			break
		}
		if strings.HasPrefix(a, "--") {
			name := a[2:]
			key, ok := curlLongs[name]
			if !ok {
				return o.usage(env, "option %s: is unknown", a)
			}
			takes := curlLongValue[name] || (len(key) == 1 && strings.Contains(curlValueOpts, key))
			val := ""
			if takes {
				if i+1 >= len(args) {
					return o.usage(env, "option %s: requires parameter", a)
				}
				i++
				val = args[i]
			}
			if code, ok := o.set(env, key, name, val); !ok {
				return code, false
			}
			continue
		}
		if len(a) < 2 || a[0] != '-' {
			o.urls = append(o.urls, a)
			continue
		}
		for j := 1; j < len(a); j++ {
			c := a[j : j+1]
			if strings.Contains(curlValueOpts, c) {
				val := a[j+1:]
				if val == "" {
					if i+1 >= len(args) {
						return o.usage(env, "option %s: requires parameter", a)
					}
					i++
					val = args[i]
				}
				if code, ok := o.set(env, c, "", val); !ok {
					return code, false
				}
				break
			}
			if !strings.Contains("sSfLOIivkGNg#q", c) {
				return o.usage(env, "option %s: is unknown", a)
			}
			if code, ok := o.set(env, c, "", ""); !ok {
				return code, false
			}
		}
	}
	return 0, true
}

// set applies one option (key: its short form, or its long name).
func (o *curlOpts) set(env *Env, key, long, val string) (int, bool) {
	switch key {
	case "s":
		o.silent = true
	case "S":
		o.showError = true
	case "f":
		o.fail = true
	case "fail-with-body":
		o.failBody = true
	case "L":
		o.location = true
	case "I":
		o.head = true
	case "i":
		o.include = true
	case "v":
		o.verbose = true
	case "G":
		o.get = true
	case "compressed":
		o.compressed = true
	case "k", "N", "g", "#", "q", "http1.1", "no-progress-meter", "create-dirs":
		// Accepted, nothing to do: there is no certificate to skip (Env.Net
		// decides), no buffering, no URL globbing, no progress meter.
	case "o":
		o.outputs = append(o.outputs, val)
		if val == "" {
			o.outputs[len(o.outputs)-1] = "./"
		}
	case "O":
		o.outputs = append(o.outputs, "")
	case "remote-name-all":
		o.remoteAll = true
	case "X":
		o.method = val
	case "H":
		o.headers = append(o.headers, val)
	case "A":
		o.agent = &val
	case "e":
		o.referer = &val
	case "u":
		o.user = &val
	case "w":
		if strings.HasPrefix(val, "@") {
			b, err := o.readArg(env, val[1:])
			if err != nil {
				return curlUsage, false
			}
			// As curl's file2string: the lines, without their line ends.
			val = strings.NewReplacer("\r", "", "\n", "").Replace(string(b))
		}
		o.writeOut = val
	case "T":
		o.upload = val
	case "url":
		o.urls = append(o.urls, val)
	case "m", "connect-timeout":
		f, err := strconv.ParseFloat(val, 64)
		if err != nil || f < 0 {
			return o.usage(env, "option %s: expected a proper numerical parameter", curlOptName(key, long))
		}
		if key == "m" {
			o.maxTime = time.Duration(f * float64(time.Second))
		}
	case "max-redirs":
		n, err := strconv.Atoi(val)
		if err != nil {
			return o.usage(env, "option --max-redirs: expected a proper numerical parameter")
		}
		o.maxRedirs = n
	case "retry":
		if _, err := strconv.Atoi(val); err != nil {
			return o.usage(env, "option --retry: expected a proper numerical parameter")
		}
	case "F", "form-string":
		o.forms = append(o.forms, curlForm{arg: val, string: key == "form-string"})
	case "d", "data-binary", "data-raw", "data-urlencode", "json":
		part, err := o.dataPart(env, key, val)
		if err != nil {
			return curlOutOfMemory, false
		}
		o.data = append(o.data, part)
		o.hasData = true
		if key == "json" {
			o.json = true
		}
	default:
		return o.usage(env, "option %s: is unknown", curlOptName(key, long))
	}
	return 0, true
}

// isFileErr reports whether err is a file's (missing, unreadable), which
// curl warns about, not the memory budget's or the size limit's.
func isFileErr(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe)
}

// memFail reports data too large to hold (curl's out of memory, 27).
func (o *curlOpts) memFail(env *Env, err error) error {
	if !o.silent || o.showError {
		fmt.Fprintf(env.Stderr, "curl: (%d) Out of memory: %s\n", curlOutOfMemory, Strerror(err))
	}
	return err
}

func curlOptName(key, long string) string {
	if long != "" {
		return "--" + long
	}
	return "-" + key
}

// readArg reads the file an @name argument names ("-": stdin), charged to
// Env.Mem.
func (o *curlOpts) readArg(env *Env, name string) ([]byte, error) {
	if name == "-" {
		return readAllLimited(env, ctxReader{env, env.Stdin})
	}
	f, err := env.FS.Open(env.Ctx, env.Abs(name))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAllLimited(env, f)
}

// dataPart is one -d, --data-binary, --data-raw, --data-urlencode or --json
// argument as it goes into the body.
func (o *curlOpts) dataPart(env *Env, key, val string) (string, error) {
	switch key {
	case "data-raw":
		return val, nil
	case "d", "data-binary", "json":
		if !strings.HasPrefix(val, "@") {
			return val, nil
		}
		b, err := o.readArg(env, val[1:])
		if err != nil && !isFileErr(err) {
			return "", o.memFail(env, err)
		}
		if err != nil {
			if !o.silent {
				fmt.Fprintf(env.Stderr, "Warning: Couldn't read data from file \"%s\", this makes an empty \nWarning: POST.\n", val[1:])
			}
			return "", nil
		}
		if key == "d" {
			b = bytes.ReplaceAll(bytes.ReplaceAll(b, []byte("\r"), nil), []byte("\n"), nil)
		}
		return string(b), nil
	}
	// --data-urlencode: content, =content, name=content, @file, name@file.
	name, content := "", val
	if i := strings.IndexAny(val, "=@"); i >= 0 {
		name, content = val[:i], val[i+1:]
		if val[i] == '@' {
			b, err := o.readArg(env, content)
			if err != nil && !isFileErr(err) {
				return "", o.memFail(env, err)
			}
			if err != nil {
				if !o.silent {
					fmt.Fprintf(env.Stderr, "Warning: Couldn't read data from file \"%s\", this makes an empty \nWarning: POST.\n", content)
				}
				b = nil
			}
			content = string(b)
		}
	}
	enc := curlEscape(content)
	if name != "" {
		return name + "=" + enc, nil
	}
	return enc, nil
}

// curlEscape percent-encodes s as --data-urlencode does: everything but
// letters, digits and -._~, a space as +.
func curlEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~':
			b.WriteByte(c)
		case c == ' ':
			b.WriteByte('+')
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// curlXfer is the state of one transfer, for the error message and -w.
type curlXfer struct {
	o         *curlOpts
	env       *Env
	start     time.Time
	url       *url.URL
	method    string
	resp      *http.Response
	hops      int
	down, up  int64
	headerLen int64
	exit      int
	errMsg    string
}

// transfer fetches one URL to out ("-": stdout; remote: the URL's file
// name) and returns the exit status.
func (o *curlOpts) transfer(env *Env, raw, out string, remote bool) int {
	x := &curlXfer{o: o, env: env, start: time.Now()}
	code := x.run(raw, out, remote)
	x.exit = code
	if o.writeOut != "" {
		x.writeOut()
	}
	return code
}

// failf records the error of a transfer and prints it unless silenced.
func (x *curlXfer) failf(code int, format string, a ...any) int {
	x.errMsg = fmt.Sprintf(format, a...)
	if !x.o.silent || x.o.showError {
		fmt.Fprintf(x.env.Stderr, "curl: (%d) %s\n", code, x.errMsg)
	}
	return code
}

func (x *curlXfer) elapsedMS() int64 { return time.Since(x.start).Milliseconds() }

func (x *curlXfer) run(raw, out string, remote bool) int {
	o, env := x.o, x.env
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return x.failf(curlBadURL, "URL using bad/illegal format or missing URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return x.failf(curlUnsupported, "Protocol \"%s\" not supported or disabled in libcurl", u.Scheme)
	}
	if u.Path == "" {
		u.Path = "/"
	}
	x.url = u
	// The body.
	var body []byte
	method := "GET"
	bodySet := false
	if o.hasData {
		data := strings.Join(o.data, "&")
		if o.get {
			if u.RawQuery != "" {
				u.RawQuery += "&" + data
			} else {
				u.RawQuery = data
			}
		} else {
			body, bodySet, method = []byte(data), true, "POST"
		}
	}
	var formType string
	if len(o.forms) > 0 {
		b, ctype, code := o.formBody(env)
		switch {
		case code < 0: // reported
			x.errMsg = "Failed to open/read local data from file/application"
			return -code
		case code == curlOutOfMemory:
			return x.failf(code, "Out of memory")
		case code != 0:
			return code
		}
		defer env.Release(int64(cap(b)))
		body, bodySet, method, formType = b, true, "POST", ctype
	}
	if o.upload != "" {
		b, err := o.readUpload(env)
		if err != nil {
			fmt.Fprintf(env.Stderr, "curl: Can't open '%s'!\n", o.upload)
			fmt.Fprintln(env.Stderr, curlTryHelp)
			return x.failf(curlReadError, "Failed to open/read local data from file/application")
		}
		defer env.Release(held(b))
		body, bodySet, method = b, true, "PUT"
		if strings.HasSuffix(u.Path, "/") && o.upload != "-" {
			u.Path += path.Base(o.upload)
		}
	}
	if o.head {
		method = "HEAD"
	}
	if o.method != "" {
		method = o.method
	}
	x.method = method
	// The output.
	var w io.Writer = env.Stdout
	var file *lazyFile
	if remote {
		out = path.Base(u.Path)
		if u.Path == "/" || strings.HasSuffix(u.Path, "/") {
			return x.failf(curlWriteError, "Failed writing received data to disk/application")
		}
	}
	if out != "-" {
		w, file = outputTo(env, out)
		if file != nil {
			defer file.Close()
		}
	}
	if env.Net == nil {
		host, port := hostPort(u)
		return x.failf(curlConnect, "Failed to connect to %s port %s: %v", host, port, errNoNetwork(method, u))
	}
	ctx := env.Ctx
	if o.maxTime > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.maxTime)
		defer cancel()
	}
	client := netClient(env)
	explicit := o.method != ""
	for {
		req, err := x.request(ctx, method, u, body, bodySet, formType)
		if err != nil {
			return x.failf(curlBadURL, "URL using bad/illegal format or missing URL")
		}
		resp, err := client.Do(req)
		if err != nil {
			return x.netFail(ctx, u, err)
		}
		x.resp = resp
		if o.verbose {
			x.verboseResponse(resp)
		}
		hdr := x.headerBlock(resp)
		x.headerLen += int64(len(hdr))
		loc := resp.Header.Get("Location")
		redirect := o.location && loc != "" && (resp.StatusCode == 301 || resp.StatusCode == 302 || resp.StatusCode == 303 || resp.StatusCode == 307 || resp.StatusCode == 308)
		if o.include || o.head {
			if _, err := io.WriteString(w, hdr); err != nil {
				resp.Body.Close()
				return x.writeFail(file, err)
			}
		}
		if redirect {
			resp.Body.Close()
			if x.hops >= o.maxRedirs {
				return x.failf(curlTooManyHops, "Maximum (%d) redirects followed", o.maxRedirs)
			}
			next, err := u.Parse(loc)
			if err != nil || (next.Scheme != "http" && next.Scheme != "https") {
				return x.failf(curlUnsupported, "Protocol \"%s\" not supported or disabled in libcurl", next.Scheme)
			}
			x.hops++
			// curl's rules: 301 and 302 turn a POST into a GET, 303 anything
			// but HEAD; -X keeps its method.
			if (resp.StatusCode == 301 || resp.StatusCode == 302) && method == "POST" || resp.StatusCode == 303 && method != "HEAD" {
				if !explicit {
					method = "GET"
				}
				body, bodySet = nil, false
			}
			if next.Host != u.Host {
				o.user = nil // credentials go to the first host only
			}
			u = next
			x.url = u
			x.method = method
			continue
		}
		defer resp.Body.Close()
		if resp.StatusCode >= 400 && o.fail && !o.failBody {
			return x.failf(curlHTTPError, "The requested URL returned error: %d", resp.StatusCode)
		}
		if method != "HEAD" {
			r, err := x.decoder(resp)
			if err != nil {
				return x.failf(curlBadEncoding, "Unrecognized content encoding type. libcurl understands %s content encodings.", curlAcceptCoding)
			}
			n, rerr, werr := copyBody(env, w, r)
			x.down += n
			if werr != nil {
				return x.writeFail(file, werr)
			}
			if rerr != nil {
				return x.netFail(ctx, u, rerr)
			}
		}
		if o.verbose {
			if x.down > 0 {
				fmt.Fprintf(env.Stderr, "{ [%d bytes data]\n", x.down)
			}
			fmt.Fprintf(env.Stderr, "* Connection #0 to host %s left intact\n", u.Hostname())
		}
		if file != nil {
			if err := file.open(); err != nil {
				return x.writeFail(file, err)
			}
		}
		if resp.StatusCode >= 400 && o.failBody {
			return x.failf(curlHTTPError, "The requested URL returned error: %d", resp.StatusCode)
		}
		return 0
	}
}

// curlMIMETypes are the types curl gives a file part by its name's
// extension (lib/mime.c); others are application/octet-stream.
var curlMIMETypes = map[string]string{
	".gif": "image/gif", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".png": "image/png",
	".svg": "image/svg+xml", ".txt": "text/plain", ".htm": "text/html", ".html": "text/html",
	".pdf": "application/pdf", ".xml": "application/xml",
}

// formBody builds the multipart/form-data body of the -F arguments:
// name=value, name=@file (a file part), name=<file (a field read from a
// file), with ;type= and ;filename= after a file. It returns the body
// (charged to Env.Mem), its Content-Type, and curl's status on failure.
func (o *curlOpts) formBody(env *Env) ([]byte, string, int) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	var rnd [8]byte
	rand.Read(rnd[:])
	mw.SetBoundary("------------------------" + hex.EncodeToString(rnd[:]))
	held := int64(0)
	defer func() { env.Release(held) }()
	for _, f := range o.forms {
		name, val, ok := strings.Cut(f.arg, "=")
		if !ok {
			if !o.silent {
				fmt.Fprintf(env.Stderr, "Warning: Illegally formatted input field!\n")
			}
			fmt.Fprintln(env.Stderr, "curl: option -F: is badly used here")
			fmt.Fprintln(env.Stderr, curlTryHelp)
			return nil, "", curlUsage
		}
		hdr := textproto.MIMEHeader{}
		var content []byte
		if !f.string && (strings.HasPrefix(val, "@") || strings.HasPrefix(val, "<")) {
			file, params, _ := strings.Cut(val[1:], ";")
			ctype, fname := "", path.Base(file)
			for _, p := range strings.Split(params, ";") {
				if v, ok := strings.CutPrefix(p, "type="); ok {
					ctype = v
				} else if v, ok := strings.CutPrefix(p, "filename="); ok {
					fname = v
				}
			}
			b, err := o.readArg(env, file)
			if err != nil {
				if !o.silent || o.showError {
					fmt.Fprintf(env.Stderr, "curl: (26) Failed to open/read local data from file/application\n")
				}
				return nil, "", -curlReadError
			}
			held += int64(cap(b))
			content = b
			if val[0] == '@' {
				if ctype == "" {
					ctype = curlMIMETypes[strings.ToLower(path.Ext(fname))]
					if ctype == "" {
						ctype = "application/octet-stream"
					}
				}
				hdr.Set("Content-Disposition", fmt.Sprintf(`form-data; name="%s"; filename="%s"`, curlQuote(name), curlQuote(fname)))
				if file != "-" || strings.Contains(params, "type=") {
					hdr.Set("Content-Type", ctype) // stdin's part has none unless given
				}
			} else {
				hdr.Set("Content-Disposition", fmt.Sprintf(`form-data; name="%s"`, curlQuote(name)))
				if ctype != "" {
					hdr.Set("Content-Type", ctype)
				}
			}
		} else {
			value := val
			if !f.string {
				if v, params, ok := strings.Cut(val, ";type="); ok {
					value = v
					hdr.Set("Content-Type", params)
				}
			}
			content = []byte(value)
			hdr.Set("Content-Disposition", fmt.Sprintf(`form-data; name="%s"`, curlQuote(name)))
		}
		if err := env.Hold(int64(len(content)) + 256); err != nil {
			return nil, "", curlOutOfMemory
		}
		held += int64(len(content)) + 256
		pw, _ := mw.CreatePart(hdr)
		pw.Write(content)
	}
	mw.Close()
	out := buf.Bytes()
	if err := env.Hold(int64(cap(out))); err != nil {
		return nil, "", curlOutOfMemory
	}
	return out, mw.FormDataContentType(), 0
}

// curlQuote escapes a name in a Content-Disposition parameter as curl
// does (backslash-escaped quotes and backslashes).
func curlQuote(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s)
}

// readUpload reads the -T file ("-": stdin), charged to Env.Mem.
func (o *curlOpts) readUpload(env *Env) ([]byte, error) {
	return o.readArg(env, o.upload)
}

// request builds one request with curl's headers.
func (x *curlXfer) request(ctx context.Context, method string, u *url.URL, body []byte, bodySet bool, formType string) (*http.Request, error) {
	o := x.o
	var rd io.Reader
	if bodySet {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return nil, err
	}
	if !bodySet {
		req.Body, req.ContentLength = nil, 0
	}
	x.up = int64(len(body))
	h := req.Header
	h.Set("User-Agent", "curl/"+curlVersion)
	h.Set("Accept", "*/*")
	if formType != "" {
		h.Set("Content-Type", formType)
	} else if bodySet && o.upload == "" {
		h.Set("Content-Type", "application/x-www-form-urlencoded")
		if o.json {
			h.Set("Content-Type", "application/json")
			h.Set("Accept", "application/json")
		}
	}
	if o.compressed {
		h.Set("Accept-Encoding", curlAcceptCoding)
	} else {
		// Without it Go's transport would ask for gzip and decode it; curl
		// asks for no encoding.
		h.Set("Accept-Encoding", "identity")
	}
	if o.agent != nil {
		h.Set("User-Agent", *o.agent) // "" sends none (Go's client then adds none)
	}
	if bodySet && (o.upload != "" || len(body) > 1<<20) {
		h.Set("Expect", "100-continue") // what curl sends with these bodies
	}
	if o.referer != nil {
		h.Set("Referer", strings.TrimSuffix(*o.referer, ";auto"))
	}
	if o.user != nil {
		user, pass, _ := strings.Cut(*o.user, ":")
		req.SetBasicAuth(user, pass)
	}
	replaced := map[string]bool{} // the first -H of a name replaces curl's, later ones add
	for _, line := range o.headers {
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			if n, semi := strings.CutSuffix(line, ";"); semi {
				h[http.CanonicalHeaderKey(n)] = []string{""}
			}
			continue
		}
		name = strings.TrimSpace(name)
		value = strings.TrimSpace(value)
		if value == "" {
			// "Name:" removes a header curl would send (a present empty
			// User-Agent keeps Go's client from adding its own).
			h.Del(name)
			if strings.EqualFold(name, "User-Agent") {
				h.Set("User-Agent", "")
			}
			continue
		}
		if strings.EqualFold(name, "Host") {
			req.Host = value
			continue
		}
		if k := http.CanonicalHeaderKey(name); !replaced[k] {
			h.Del(k)
			replaced[k] = true
		}
		h.Add(name, value)
	}
	if o.verbose {
		x.verboseRequest(req)
	}
	return req, nil
}

// headerBlock is the response's status line and headers as -i prints
// them.
func (x *curlXfer) headerBlock(resp *http.Response) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\r\n", resp.Proto, resp.Status)
	for _, l := range headerLines(resp) {
		b.WriteString(l + "\r\n")
	}
	b.WriteString("\r\n")
	return b.String()
}

// decoder returns resp's body, decoded when --compressed asked for an
// encoding.
func (x *curlXfer) decoder(resp *http.Response) (io.Reader, error) {
	if !x.o.compressed {
		return resp.Body, nil
	}
	switch strings.ToLower(resp.Header.Get("Content-Encoding")) {
	case "", "identity":
		return resp.Body, nil
	case "gzip", "x-gzip":
		return gzip.NewReader(resp.Body)
	case "deflate":
		br := newPeekReader(resp.Body)
		if zr, err := zlib.NewReader(br); err == nil {
			return zr, nil
		}
		return flate.NewReader(br.replay()), nil
	}
	return nil, errors.New("unknown encoding")
}

// peekReader keeps what was read so it can be read again (deflate without
// a zlib header).
type peekReader struct {
	r    io.Reader
	seen bytes.Buffer
}

func newPeekReader(r io.Reader) *peekReader { return &peekReader{r: r} }

func (p *peekReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if p.seen.Len() < 64 {
		p.seen.Write(b[:n])
	}
	return n, err
}

func (p *peekReader) replay() io.Reader { return io.MultiReader(bytes.NewReader(p.seen.Bytes()), p.r) }

// netFail reports a failed request or body read with curl's status.
func (x *curlXfer) netFail(ctx context.Context, u *url.URL, err error) int {
	host, port := hostPort(u)
	if ctx.Err() == context.DeadlineExceeded && x.env.Ctx.Err() == nil {
		return x.failf(curlTimeout, "Operation timed out after %d milliseconds with %d bytes received", x.elapsedMS(), x.down)
	}
	switch classifyNetErr(err) {
	case netNone:
		return x.failf(curlConnect, "Failed to connect to %s port %s: %v", host, port, err)
	case netResolve:
		return x.failf(curlResolve, "Could not resolve host: %s", host)
	case netConnect:
		return x.failf(curlConnect, "Failed to connect to %s port %s after %d ms: Couldn't connect to server", host, port, x.elapsedMS())
	case netTimeout:
		return x.failf(curlTimeout, "Operation timed out after %d milliseconds with %d bytes received", x.elapsedMS(), x.down)
	case netEmpty:
		if x.resp == nil {
			return x.failf(curlEmptyReply, "Empty reply from server")
		}
		return x.failf(curlRecvError, "Failure when receiving data from the peer")
	case netReset:
		if x.resp == nil {
			return x.failf(curlSendError, "Failed sending data to the peer")
		}
		return x.failf(curlRecvError, "Failure when receiving data from the peer")
	}
	if x.env.Ctx.Err() != nil {
		return x.failf(curlTimeout, "Operation was aborted")
	}
	return x.failf(curlRecvError, "%v", err)
}

// writeFail reports an output that could not be written.
func (x *curlXfer) writeFail(file *lazyFile, err error) int {
	if file != nil && file.err != nil && !x.o.silent {
		fmt.Fprintf(x.env.Stderr, "Warning: Failed to open the file %s: %s\n", file.path, Strerror(file.err))
	}
	return x.failf(curlWriteError, "Failure writing output to destination")
}

// verboseRequest prints what -v shows of a request: curl's order (Host,
// Authorization, User-Agent, Accept, the rest by name).
func (x *curlXfer) verboseRequest(req *http.Request) {
	e := x.env.Stderr
	host, port := hostPort(req.URL)
	fmt.Fprintf(e, "*   Trying %s:%s...\n", host, port)
	fmt.Fprintf(e, "* Connected to %s (%s) port %s (#0)\n", host, host, port)
	fmt.Fprintf(e, "> %s %s HTTP/1.1\r\n", req.Method, req.URL.RequestURI())
	h := req.Host
	if h == "" {
		h = req.URL.Host
	}
	fmt.Fprintf(e, "> Host: %s\r\n", h)
	first := []string{"Authorization", "User-Agent", "Accept"}
	keys := make([]string, 0, len(req.Header))
	for k := range req.Header {
		if !slices.Contains(first, k) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range append(first, keys...) {
		for _, v := range req.Header[k] {
			if v != "" {
				fmt.Fprintf(e, "> %s: %s\r\n", k, v)
			}
		}
	}
	if req.ContentLength > 0 {
		fmt.Fprintf(e, "> Content-Length: %d\r\n", req.ContentLength)
	}
	fmt.Fprint(e, "> \r\n")
}

func (x *curlXfer) verboseResponse(resp *http.Response) {
	e := x.env.Stderr
	fmt.Fprintf(e, "< %s %s\r\n", resp.Proto, resp.Status)
	for _, l := range headerLines(resp) {
		fmt.Fprintf(e, "< %s\r\n", l)
	}
	fmt.Fprint(e, "< \r\n")
}

// writeOut prints -w's text with its variables.
func (x *curlXfer) writeOut() {
	s := x.o.writeOut
	var b strings.Builder
	out := x.env.Stdout
	flush := func() {
		io.WriteString(out, b.String())
		b.Reset()
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			switch s[i+1] {
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case '\\':
				b.WriteByte('\\')
			default:
				b.WriteByte('\\')
				b.WriteByte(s[i+1])
			}
			i++
		case c == '%' && i+1 < len(s) && s[i+1] == '%':
			b.WriteByte('%')
			i++
		case c == '%' && strings.HasPrefix(s[i:], "%{"):
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				b.WriteString(s[i:])
				i = len(s)
				continue
			}
			name := s[i+2 : i+end]
			i += end
			switch name {
			case "stdout":
				flush()
				out = x.env.Stdout
				continue
			case "stderr":
				flush()
				out = x.env.Stderr
				continue
			}
			v, ok := x.variable(name)
			if !ok {
				flush()
				fmt.Fprintf(x.env.Stderr, "curl: unknown --write-out variable: '%s'\n", name)
				continue
			}
			b.WriteString(v)
		case c == '%' && strings.HasPrefix(s[i:], "%header{"):
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				b.WriteString(s[i:])
				i = len(s)
				continue
			}
			name := s[i+8 : i+end]
			i += end
			if x.resp != nil {
				b.WriteString(strings.Join(x.resp.Header.Values(name), ", "))
			}
		default:
			b.WriteByte(c)
		}
	}
	flush()
}

// variable is one -w variable's value.
func (x *curlXfer) variable(name string) (string, bool) {
	secs := func() string { return fmt.Sprintf("%.6f", time.Since(x.start).Seconds()) }
	code := 0
	if x.resp != nil {
		code = x.resp.StatusCode
	}
	switch name {
	case "http_code", "response_code":
		return fmt.Sprintf("%03d", code), true
	case "url_effective":
		if x.url == nil {
			return "", true
		}
		return x.url.String(), true
	case "url":
		if len(x.o.urls) > 0 {
			return x.o.urls[0], true
		}
		return "", true
	case "content_type":
		if x.resp == nil {
			return "", true
		}
		return x.resp.Header.Get("Content-Type"), true
	case "size_download":
		return strconv.FormatInt(x.down, 10), true
	case "size_upload":
		return strconv.FormatInt(x.up, 10), true
	case "size_header":
		return strconv.FormatInt(x.headerLen, 10), true
	case "num_redirects":
		return strconv.Itoa(x.hops), true
	case "redirect_url":
		if x.resp == nil || x.o.location {
			return "", true
		}
		loc := x.resp.Header.Get("Location")
		if loc == "" || x.resp.StatusCode < 300 || x.resp.StatusCode > 399 {
			return "", true
		}
		if u, err := x.url.Parse(loc); err == nil {
			return u.String(), true
		}
		return loc, true
	case "method":
		return x.method, true
	case "exitcode":
		return strconv.Itoa(x.exit), true
	case "errormsg":
		return x.errMsg, true
	case "http_version":
		if x.resp == nil {
			return "0", true
		}
		if x.resp.ProtoMajor == 2 {
			return "2", true
		}
		return fmt.Sprintf("%d.%d", x.resp.ProtoMajor, x.resp.ProtoMinor), true
	case "scheme":
		if x.url == nil {
			return "", true
		}
		return strings.ToUpper(x.url.Scheme), true
	case "num_connects":
		if x.resp == nil {
			return "0", true
		}
		return "1", true
	case "time_total", "time_starttransfer", "time_connect", "time_namelookup", "time_appconnect", "time_pretransfer", "time_redirect":
		return secs(), true
	case "speed_download":
		return strconv.FormatInt(int64(float64(x.down)/max(time.Since(x.start).Seconds(), 1e-6)), 10), true
	case "remote_ip", "remote_port", "local_ip", "local_port":
		return "", true
	}
	return "", false
}
