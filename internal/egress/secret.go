package egress

import (
	"encoding/base64"
	"net/http"
	"strings"
)

// Secret is a value an execution may send to some hosts without ever
// seeing it: its environment holds Placeholder, and the egress replaces the
// placeholder by Value in the requests to Hosts only (in header values, and
// in the URL of requests desk sees whole: plain HTTP, in-process clients,
// HTTPS it terminates). Sent anywhere else, the placeholder stays a
// placeholder.
type Secret struct {
	Name        string
	Placeholder string
	Value       string
	Hosts       []Rule // matched as rules' hosts (ports and methods are ignored)
}

// WithSecrets returns a Client that substitutes secrets.
func (c *Client) WithSecrets(s []Secret) *Client {
	out := *c
	out.secrets = append([]Secret(nil), s...)
	return &out
}

// WithCA returns a Client whose tunnels to its secrets' hosts the proxy
// terminates with certificates of ca (which the program must trust: CAPEM),
// so that the secrets reach them over HTTPS too.
func (c *Client) WithCA(ca *CA) *Client {
	out := *c
	out.ca = ca
	return &out
}

// CAPEM is the certificate of the Client's CA, nil without one: what a
// sandbox adds to its trusted certificates.
func (c *Client) CAPEM() []byte {
	if c.ca == nil {
		return nil
	}
	return c.ca.PEM()
}

// terminates reports whether the proxy terminates a tunnel to host: the
// Client has a CA and secrets bound to host.
func (c *Client) terminates(host string) bool {
	return c.ca != nil && len(c.bound(host)) > 0
}

// bound returns the secrets bound to host.
func (c *Client) bound(host string) []Secret {
	var out []Secret
	for _, s := range c.secrets {
		for _, h := range s.Hosts {
			if h.matchesHost(host) {
				out = append(out, s)
				break
			}
		}
	}
	return out
}

// substitute replaces the placeholders of the secrets bound to host in req.
func (c *Client) substitute(req *http.Request, host string) {
	ss := c.bound(host)
	if len(ss) == 0 {
		return
	}
	for k, vs := range req.Header {
		for i, v := range vs {
			v = replaceAll(v, ss)
			if scheme, cred, ok := strings.Cut(v, " "); ok && strings.EqualFold(scheme, "Basic") {
				// user:password, base64-encoded: the placeholder is inside.
				if raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(cred)); err == nil {
					if r := replaceAll(string(raw), ss); r != string(raw) {
						v = scheme + " " + base64.StdEncoding.EncodeToString([]byte(r))
					}
				}
			}
			req.Header[k][i] = v
		}
	}
	if u := req.URL; u != nil {
		for _, s := range ss {
			u.RawQuery = strings.ReplaceAll(u.RawQuery, s.Placeholder, s.Value)
			if strings.Contains(u.Path, s.Placeholder) {
				u.Path = strings.ReplaceAll(u.Path, s.Placeholder, s.Value)
				u.RawPath = ""
			}
			if u.User != nil {
				name := strings.ReplaceAll(u.User.Username(), s.Placeholder, s.Value)
				if p, ok := u.User.Password(); ok {
					req.SetBasicAuth(name, strings.ReplaceAll(p, s.Placeholder, s.Value))
				}
				u.User = nil
			}
		}
	}
}

func replaceAll(v string, ss []Secret) string {
	for _, s := range ss {
		if strings.Contains(v, s.Placeholder) {
			v = strings.ReplaceAll(v, s.Placeholder, s.Value)
		}
	}
	return v
}
