package egress

import (
	"errors"
	"io"
	"net/http"
	"strings"
)

// RefusalErrors wraps rt (a Client, or any transport in front of one) so
// that a refusal (the 403 answer marked X-Desk-Egress: refused) becomes an
// error carrying Denied's text: the request, the host, the layer and rule
// that refused it and how to allow it. In-process clients that map any 403
// to their own message (go-git reports an authentication failure) then
// print the explanation instead. At most 4 KiB of the body is read.
func RefusalErrors(rt http.RoundTripper) http.RoundTripper { return refusalErrors{rt} }

type refusalErrors struct{ rt http.RoundTripper }

func (r refusalErrors) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.rt.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusForbidden || resp.Header.Get("X-Desk-Egress") != "refused" {
		return resp, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	return nil, errors.New(strings.TrimSpace(string(b)))
}
