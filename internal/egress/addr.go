package egress

import (
	"net"
	"net/netip"
)

var (
	cgnat     = netip.MustParsePrefix("100.64.0.0/10")
	thisNet   = netip.MustParsePrefix("0.0.0.0/8")
	benchmark = netip.MustParsePrefix("198.18.0.0/15")
	reserved  = netip.MustParsePrefix("240.0.0.0/4") // 255.255.255.255 included
	nat64     = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour = netip.MustParsePrefix("2002::/16")
)

// ownKind says whether a is one of the host's own addresses, which no
// policy reaches unless its first rule names the address exactly: "" if
// not, else what it is ("loopback", "link-local (cloud metadata lives at
// 169.254.169.254)", "a private address", "an address of this host's
// interfaces", ...). ifaces are the host's interface addresses.
func ownKind(a netip.Addr, ifaces []netip.Addr) string {
	a = a.Unmap()
	switch {
	case !a.IsValid():
		return "not an address"
	case a.IsLoopback():
		return "loopback"
	case a.IsUnspecified() || thisNet.Contains(a):
		return "an unspecified address (this host)"
	case a.IsLinkLocalUnicast():
		return "link-local (cloud metadata lives at 169.254.169.254)"
	case a.IsPrivate():
		return "a private address"
	case cgnat.Contains(a):
		return "a shared address (100.64.0.0/10)"
	case a.IsMulticast() || a.IsLinkLocalMulticast() || a.IsInterfaceLocalMulticast():
		return "multicast"
	case benchmark.Contains(a) || reserved.Contains(a):
		return "a reserved address"
	case nat64.Contains(a):
		// The IPv4 address inside a NAT64 one is what is reached.
		b := a.As16()
		if k := ownKind(netip.AddrFrom4([4]byte(b[12:])), ifaces); k != "" {
			return k + " (through NAT64)"
		}
	case sixToFour.Contains(a):
		b := a.As16()
		if k := ownKind(netip.AddrFrom4([4]byte(b[2:6])), ifaces); k != "" {
			return k + " (through 6to4)"
		}
	}
	for _, i := range ifaces {
		if i == a {
			return "an address of this host's interfaces"
		}
	}
	return ""
}

// interfaceAddrs lists the host's interface addresses.
func interfaceAddrs() []netip.Addr {
	as, err := net.InterfaceAddrs()
	if err != nil {
		return nil
	}
	var out []netip.Addr
	for _, a := range as {
		if n, ok := a.(*net.IPNet); ok {
			if ip, ok := netip.AddrFromSlice(n.IP); ok {
				out = append(out, ip.Unmap())
			}
		}
	}
	return out
}
