package cmds

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"
)

func init() { Register("wget", Wget) }

// wgetVersion is the wget whose behaviour this one follows.
const wgetVersion = "1.21.3"

// Exit statuses of wget.
const (
	wgetGeneric = 1
	wgetUsage   = 2
	wgetIOError = 3
	wgetNetwork = 4
	wgetAuth    = 6
	wgetServer  = 8
)

// wgetOpts are wget's options.
type wgetOpts struct {
	quiet, verbose, serverResponse, contentOnError bool
	output                                         *string
	prefix                                         string
	headers                                        []string
	method                                         string
	body                                           *string
	agent                                          *string
	user, password                                 *string
	timeout                                        time.Duration
	maxRedirect                                    int
	urls                                           []string
}

// wgetLongs are wget's long options this one has: name → takes a value.
var wgetLongs = map[string]bool{
	"quiet": false, "verbose": false, "no-verbose": false, "server-response": false, "output-document": true,
	"header": true, "post-data": true, "post-file": true, "method": true, "body-data": true, "body-file": true,
	"user-agent": true, "user": true, "password": true, "http-user": true, "http-password": true,
	"timeout": true, "tries": true, "no-check-certificate": false, "directory-prefix": true,
	"max-redirect": true, "content-on-error": false, "no-clobber": false, "progress": true,
	"show-progress": false, "no-cache": false, "read-timeout": true, "connect-timeout": true,
}

// wgetShorts maps short options to long ones.
var wgetShorts = map[byte]string{
	'q': "quiet", 'v': "verbose", 'S': "server-response", 'O': "output-document", 'U': "user-agent",
	'T': "timeout", 't': "tries", 'P': "directory-prefix",
}

// Wget is wget, in process: HTTP and HTTPS downloads through Env.Net (the
// execution's network, where the egress policy is enforced), saved in the
// workspace. See the package documentation for the options and the
// differences.
func Wget(env *Env, args []string) int {
	o := wgetOpts{maxRedirect: 20}
	if code, ok := o.parse(env, args[1:]); !ok {
		return code
	}
	if len(o.urls) == 0 {
		fmt.Fprintln(env.Stderr, "wget: missing URL")
		fmt.Fprintln(env.Stderr, "Usage: wget [OPTION]... [URL]...")
		fmt.Fprintln(env.Stderr)
		fmt.Fprintln(env.Stderr, "Try `wget --help' for more options.")
		return wgetGeneric
	}
	// -O names one output for all URLs, created before the first request.
	var shared io.Writer
	if o.output != nil && *o.output != "-" {
		w, f := outputTo(env, *o.output)
		if f != nil {
			if err := f.open(); err != nil {
				fmt.Fprintf(env.Stderr, "%s: %s\n", *o.output, Strerror(err))
				return wgetIOError
			}
			defer f.Close()
		}
		shared = w
	} else if o.output != nil {
		shared = env.Stdout
	}
	status := 0
	for _, u := range o.urls {
		if code := o.get(env, u, shared); code != 0 && (status == 0 || code < status) {
			status = code
		}
	}
	return status
}

// usageErr reports a bad command line as wget does.
func (o *wgetOpts) usageErr(env *Env, format string, a ...any) (int, bool) {
	fmt.Fprintf(env.Stderr, "wget: "+format+"\n", a...)
	fmt.Fprintln(env.Stderr, "Usage: wget [OPTION]... [URL]...")
	fmt.Fprintln(env.Stderr)
	fmt.Fprintln(env.Stderr, "Try `wget --help' for more options.")
	return wgetUsage, false
}

// parse reads the command line (getopt_long, options and URLs mixed).
func (o *wgetOpts) parse(env *Env, args []string) (int, bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			o.urls = append(o.urls, args[i+1:]...)
			return 0, true
		case a == "-nv":
			o.set(env, "no-verbose", "")
		case a == "-nc":
			o.set(env, "no-clobber", "")
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a[2:], "=")
			full := ""
			for k := range wgetLongs {
				if k == name {
					full = k
					break
				}
				if strings.HasPrefix(k, name) {
					if full != "" {
						return o.usageErr(env, "option '%s' is ambiguous", a)
					}
					full = k
				}
			}
			if full == "" {
				return o.usageErr(env, "unrecognized option '%s'", a)
			}
			if wgetLongs[full] && !hasVal {
				if i+1 >= len(args) {
					return o.usageErr(env, "option '--%s' requires an argument", full)
				}
				i++
				val = args[i]
			} else if !wgetLongs[full] && hasVal {
				return o.usageErr(env, "option '--%s' doesn't allow an argument", full)
			}
			if code, ok := o.set(env, full, val); !ok {
				return code, false
			}
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); j++ {
				long, ok := wgetShorts[a[j]]
				if !ok {
					return o.usageErr(env, "invalid option -- '%c'", a[j])
				}
				val := ""
				if wgetLongs[long] {
					val = a[j+1:]
					if val == "" {
						if i+1 >= len(args) {
							return o.usageErr(env, "option requires an argument -- '%c'", a[j])
						}
						i++
						val = args[i]
					}
					j = len(a)
				}
				if code, ok := o.set(env, long, val); !ok {
					return code, false
				}
			}
		default:
			o.urls = append(o.urls, a)
		}
	}
	return 0, true
}

// set applies one option.
func (o *wgetOpts) set(env *Env, name, val string) (int, bool) {
	switch name {
	case "quiet":
		o.quiet = true
	case "verbose":
		o.verbose = true
	case "no-verbose":
		o.verbose = false
	case "server-response":
		o.serverResponse = true
	case "output-document":
		o.output = &val
	case "directory-prefix":
		o.prefix = val
	case "header":
		o.headers = append(o.headers, val)
	case "post-data", "body-data":
		o.body = &val
		if name == "post-data" {
			o.method = "POST"
		}
	case "post-file", "body-file":
		f, err := env.FS.Open(env.Ctx, env.Abs(val))
		var b []byte
		if err == nil {
			b, err = readAllLimited(env, f)
			f.Close()
		}
		if err != nil {
			fmt.Fprintf(env.Stderr, "wget: %s: %s\n", val, Strerror(err))
			return wgetIOError, false
		}
		s := string(b)
		o.body = &s
		if name == "post-file" {
			o.method = "POST"
		}
	case "method":
		o.method = strings.ToUpper(val)
	case "user-agent":
		o.agent = &val
	case "user", "http-user":
		o.user = &val
	case "password", "http-password":
		o.password = &val
	case "timeout", "read-timeout", "connect-timeout":
		f, err := strconv.ParseFloat(val, 64)
		if err != nil || f < 0 {
			fmt.Fprintf(env.Stderr, "wget: --%s: Invalid time period '%s'\n", name, val)
			return wgetUsage, false
		}
		if name == "timeout" || o.timeout == 0 {
			o.timeout = time.Duration(f * float64(time.Second))
		}
	case "max-redirect":
		n, err := strconv.Atoi(val)
		if err != nil {
			fmt.Fprintf(env.Stderr, "wget: --max-redirect: Invalid number '%s'\n", val)
			return wgetUsage, false
		}
		o.maxRedirect = n
	case "content-on-error":
		o.contentOnError = true
	case "tries", "no-check-certificate", "no-clobber", "progress", "show-progress", "no-cache":
		// Accepted: one try (no retries), no certificates to skip (Env.Net
		// decides), numbered names rather than clobbering, no progress bar.
	}
	return 0, true
}

// logf writes to the log (stderr) unless -q.
func (o *wgetOpts) logf(env *Env, format string, a ...any) {
	if !o.quiet {
		fmt.Fprintf(env.Stderr, format, a...)
	}
}

// get downloads one URL to shared (the -O output) or to its own file.
func (o *wgetOpts) get(env *Env, raw string, shared io.Writer) int {
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		o.logf(env, "%s: Invalid URL %s: Invalid host name\n", raw, raw)
		return wgetGeneric
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		o.logf(env, "%s: Unsupported scheme ‘%s’.\n", raw, u.Scheme)
		return wgetGeneric
	}
	if u.Path == "" {
		u.Path = "/"
	}
	method := o.method
	if method == "" {
		method = "GET"
	}
	if env.Net == nil {
		fmt.Fprintf(env.Stderr, "wget: %v\n", errNoNetwork(method, u))
		return wgetNetwork
	}
	ctx := env.Ctx
	if o.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.timeout)
		defer cancel()
	}
	client := netClient(env)
	var body []byte
	if o.body != nil {
		body = []byte(*o.body)
	}
	authed := false
	for hops := 0; ; hops++ {
		host, port := hostPort(u)
		o.logf(env, "--%s--  %s\n", env.Clock().Format("2006-01-02 15:04:05"), u.Redacted())
		req, err := o.request(ctx, method, u, body, authed)
		if err != nil {
			o.logf(env, "%s: Invalid URL\n", u)
			return wgetGeneric
		}
		o.logf(env, "Connecting to %s:%s... ", host, port)
		resp, err := client.Do(req)
		if err != nil {
			return o.netFail(env, ctx, err)
		}
		if resp.StatusCode == 401 && !authed && (o.user != nil || o.password != nil) &&
			strings.HasPrefix(strings.ToLower(resp.Header.Get("WWW-Authenticate")), "basic") {
			// wget sends credentials when challenged (no --auth-no-challenge).
			resp.Body.Close()
			o.logf(env, "connected.\nHTTP request sent, awaiting response... 401 Unauthorized\nAuthentication selected: %s\n", resp.Header.Get("WWW-Authenticate"))
			authed = true
			hops--
			continue
		}
		o.logf(env, "connected.\nHTTP request sent, awaiting response... ")
		if o.serverResponse {
			// -S prints even under -q, as wget does.
			o.logf(env, "\n")
			fmt.Fprintf(env.Stderr, "  %s %s\n", resp.Proto, resp.Status)
			for _, l := range headerLines(resp) {
				fmt.Fprintf(env.Stderr, "  %s\n", l)
			}
		} else {
			o.logf(env, "%s\n", resp.Status)
		}
		loc := resp.Header.Get("Location")
		if loc != "" && (resp.StatusCode == 301 || resp.StatusCode == 302 || resp.StatusCode == 303 || resp.StatusCode == 307 || resp.StatusCode == 308) {
			resp.Body.Close()
			if hops >= o.maxRedirect {
				o.logf(env, "%d redirections exceeded.\n", o.maxRedirect)
				return wgetServer
			}
			next, err := u.Parse(loc)
			if err != nil {
				o.logf(env, "%s: Invalid URL\n", loc)
				return wgetGeneric
			}
			o.logf(env, "Location: %s [following]\n", loc)
			if resp.StatusCode != 307 && resp.StatusCode != 308 && method == "POST" || resp.StatusCode == 303 && method != "HEAD" {
				method, body = "GET", nil
			}
			u = next
			continue
		}
		defer resp.Body.Close()
		if resp.StatusCode == 401 && !o.contentOnError {
			o.logf(env, "\nUsername/Password Authentication Failed.\n")
			return wgetAuth
		}
		if resp.StatusCode >= 400 && !o.contentOnError {
			o.logf(env, "%s ERROR %d: %s.\n\n", env.Clock().Format("2006-01-02 15:04:05"), resp.StatusCode, strings.TrimPrefix(resp.Status, strconv.Itoa(resp.StatusCode)+" "))
			return wgetServer
		}
		w := shared
		name := "-"
		var file *lazyFile
		if w == nil {
			name = o.localName(env, u)
			file = &lazyFile{env: env, path: name}
			if err := file.open(); err != nil {
				fmt.Fprintf(env.Stderr, "%s: %s\n", name, Strerror(err))
				return wgetIOError
			}
			defer file.Close()
			w = file
		} else if o.output != nil {
			name = *o.output
		}
		if resp.ContentLength >= 0 {
			o.logf(env, "Length: %d [%s]\n", resp.ContentLength, resp.Header.Get("Content-Type"))
		} else {
			o.logf(env, "Length: unspecified [%s]\n", resp.Header.Get("Content-Type"))
		}
		o.logf(env, "Saving to: ‘%s’\n\n", name)
		n, rerr, werr := copyBody(env, w, resp.Body)
		if werr != nil {
			fmt.Fprintf(env.Stderr, "Cannot write to ‘%s’ (%s).\n", name, Strerror(werr))
			return wgetIOError
		}
		if rerr != nil {
			return o.netFail(env, ctx, rerr)
		}
		o.logf(env, "%s - ‘%s’ saved [%d]\n\n", env.Clock().Format("2006-01-02 15:04:05"), name, n)
		if resp.StatusCode >= 400 {
			return wgetServer
		}
		return 0
	}
}

// request builds one request with wget's headers.
func (o *wgetOpts) request(ctx context.Context, method string, u *url.URL, body []byte, auth bool) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return nil, err
	}
	if body == nil {
		req.Body, req.ContentLength = nil, 0
	}
	h := req.Header
	h.Set("User-Agent", "Wget/"+wgetVersion)
	h.Set("Accept", "*/*")
	h.Set("Accept-Encoding", "identity")
	if body != nil {
		h.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if o.agent != nil {
		h.Set("User-Agent", *o.agent)
	}
	if auth {
		var user, pass string
		if o.user != nil {
			user = *o.user
		}
		if o.password != nil {
			pass = *o.password
		}
		req.SetBasicAuth(user, pass)
	}
	for _, line := range o.headers {
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if strings.EqualFold(name, "Host") {
			req.Host = value
			continue
		}
		if value == "" {
			h.Del(name)
			continue
		}
		h.Set(name, value) // wget's --header replaces a header of its own
	}
	return req, nil
}

// localName is the file a download without -O is saved to: the URL's last
// path segment (index.html for a directory), under -P, numbered (.1, .2,
// ...) when the name is taken, as wget does without -nc.
func (o *wgetOpts) localName(env *Env, u *url.URL) string {
	base := path.Base(u.Path)
	if strings.HasSuffix(u.Path, "/") || base == "/" || base == "." {
		base = "index.html"
	}
	if o.prefix != "" {
		base = path.Join(o.prefix, base)
	}
	name := base
	for i := 1; i < 1000; i++ {
		if _, err := env.FS.Lstat(env.Ctx, env.Abs(name)); err != nil {
			break
		}
		name = base + "." + strconv.Itoa(i)
	}
	return name
}

// netFail reports a failed request with wget's words and status.
func (o *wgetOpts) netFail(env *Env, ctx context.Context, err error) int {
	if ctx.Err() == context.DeadlineExceeded && env.Ctx.Err() == nil {
		o.logf(env, "failed: Connection timed out.\nGiving up.\n\n")
		return wgetNetwork
	}
	switch classifyNetErr(err) {
	case netConnect:
		o.logf(env, "failed: Connection refused.\n")
	case netResolve:
		o.logf(env, "failed: Name or service not known.\n")
	case netTimeout:
		o.logf(env, "failed: Connection timed out.\nGiving up.\n\n")
	default:
		o.logf(env, "failed: %v.\n", err)
	}
	return wgetNetwork
}
