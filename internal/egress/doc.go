// Package egress is desk's one network policy and its enforcement, used by
// every backend: nothing leaves a workspace except through it.
//
// # Policy
//
// A Policy is none (the default: nothing), all (every host, every port), or
// allow with Rules: a host name, "*.domain" (every subdomain of domain, not
// domain itself) or an IP address; optional ports (default 80 and 443);
// optional methods and URL path prefixes, which desk can check only on
// requests it sees whole (plain HTTP, and the requests of in-process
// clients: js fetch, the shell's curl, wget and git), so a rule with them
// does not allow a tunnel (CONNECT: HTTPS from the sandbox). Text form
// (Parse, Policy.String): "none", "all", "allow RULE; RULE", a rule being
// HOST[:PORT,...][/PREFIX,...][ METHOD,...], e.g. "allow
// registry.npmjs.org; *.github.com:443; 127.0.0.1:8080; api.example.com:80/v1/
// GET,HEAD". The JSON form is {"mode":"allow","rules":[{"host","ports",
// "methods","paths"}]}. At most MaxRules rules; a policy from outside goes
// through Validate.
//
// An execution's network (Client) is a chain of Layers: the workspace's
// policy (or the server's default), then a token's, then the execution's
// own. A request must pass every layer, so a later layer narrows, never
// widens.
//
// # The host's own addresses
//
// Loopback, unspecified, link-local (169.254.169.254, the cloud metadata
// service, among them), the private ranges (10/8, 172.16/12, 192.168/16,
// fc00::/7), 100.64/10, multicast, reserved ranges, IPv4-mapped, NAT64 and
// 6to4 forms of those, and the addresses of the host's interfaces are
// refused even under all, unless the first layer (the admin's: the
// workspace's policy) allows the request by a rule naming that IP address
// exactly; a narrowing layer's rule never lifts the refusal, and a host
// name never does: names are checked against the policy first, then
// resolved by desk (Options.Resolver), and a name any of whose addresses is
// one of the host's is refused (DNS rebinding). desk connects to the
// addresses it checked, never resolving again.
//
// # Enforcement
//
// A Network is one workspace's way out: its dialer, a pool of upstream
// connections (never the server's own proxy settings), and the
// workspace's limits: at most Options.MaxConns connections at once
// (DefaultMaxConns, 256; past it ErrTooManyConns, after idle pooled
// connections are closed) and Options.Bandwidth bytes per second each way
// over all of them (DefaultBandwidth, 256 MiB/s; a token bucket, reads and
// writes of at most 256 KiB at a time). Network.Client gives an execution its
// Client: an http.RoundTripper (run.Job.Net of the in-process backends) and
// a Tunnel (CONNECT) enforcing its layers. A refused request gets a 403
// answer (header X-Desk-Egress: refused) whose body, Denied.Error, names the
// request, the host, the layer and rule that refused it, and how to allow
// it; the refusal is logged (Options.Logger: workspace, execution
// (Client.For), target, layer), the server's record of refusals.
//
// Proxy is the HTTP forward proxy (plain HTTP through
// net/http/httputil.ReverseProxy, CONNECT tunnels spliced after a hijack;
// no HTTP is parsed by hand) the sandbox reaches through a Unix socket. Each
// request names its execution's Client by the credential of its
// Proxy-Authorization (the password of
// HTTP_PROXY=http://desk:CREDENTIAL@127.0.0.1:PORT); an unknown credential
// gets 407, so a process that outlived its execution has no network.
//
// # Where policies come from
//
// Store keeps each workspace's own policy and its secrets in files of the
// data directory (DATA/egress/WS/policy.json, secrets/NAME.json; 0600 in
// 0700 directories; package wsfile: atomic replace, bounded size), outside
// the workspace's store. desk serve's front
// writes them (the admin's API), its workers read them for each execution:
// the first layer is the workspace's policy, else the server's default
// (desk serve --egress). Narrowing layers come with Exec's context
// (WithLayer, LayersFrom): a token's policy (SourceToken), an execution's
// (SourceExecution).
//
// # Secrets
//
// A Client WithSecrets replaces each secret's placeholder by its value in
// the requests to the secret's hosts only: header values (Basic credentials
// decoded and encoded again) and, on requests desk sees whole, the URL.
// Sent anywhere else the placeholder stays a placeholder. A Client
// WithCA (the workspace's CA: Store.CA, NewCA) makes the proxy terminate a
// tunnel to a secret's host: it answers the TLS handshake with a
// certificate of the CA (the program trusts CAPEM), checks each request
// inside against the layers and sends it through the Client (which
// verifies the real host). Other tunnels stay opaque.
//
// # Not done
//
//   - Bandwidth is not tested by a test (it would need a clock); the
//     connection limit is.
//   - The host's interface addresses are read again at most every 30
//     seconds: an address added since is not refused until then.
package egress
