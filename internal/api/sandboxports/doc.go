// Package sandboxports is the API's port access (api.PortDialer) over the
// sandbox backend: what desk serve wires, and what the API's tests use, so
// they test that wiring.
//
// DialPort connects through the sandbox's init to a port of the
// workspace's running sandbox; with no sandbox running, or the port
// refused inside it, its error wraps api.ErrPortUnavailable (502
// bad_gateway). Ports lists the listening ports, none without a sandbox.
package sandboxports
