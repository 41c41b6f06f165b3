package jsvm

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// Hosts in URLs: domains, opaque hosts, IPv4 (with the standard's short,
// octal and hexadecimal forms) and IPv6.

// parseHost parses a host: an IPv6 address in brackets, an IPv4 address,
// a domain (special schemes) or an opaque host.
func parseHost(h string, opaque bool) (string, bool) {
	if strings.HasPrefix(h, "[") {
		if !strings.HasSuffix(h, "]") {
			return "", false
		}
		a, err := netip.ParseAddr(h[1 : len(h)-1])
		if err != nil || !a.Is6() || a.Zone() != "" {
			return "", false
		}
		return "[" + ipv6String(a.As16()) + "]", true
	}
	if opaque {
		for i := 0; i < len(h); i++ {
			if strings.IndexByte("\x00\t\n\r #/:<>?@[\\]^|", h[i]) >= 0 {
				return "", false
			}
		}
		return percentEncode(h, inC0), true
	}
	d := strings.ToLower(percentDecode(h))
	for i := 0; i < len(d); i++ {
		c := d[i]
		if c < 0x20 || c >= 0x7f || strings.IndexByte(" #%/:<>?@[\\]^|", c) >= 0 {
			return "", false
		}
	}
	if d == "" {
		return "", true
	}
	if ip, isNum, ok := parseIPv4(d); isNum {
		return ip, ok
	}
	return d, true
}

// parseIPv4 parses a host that ends in a number as an IPv4 address (with
// the standard's hexadecimal, octal and short forms).
func parseIPv4(d string) (ip string, isNum, ok bool) {
	parts := strings.Split(d, ".")
	if parts[len(parts)-1] == "" && len(parts) > 1 {
		parts = parts[:len(parts)-1]
	}
	last := parts[len(parts)-1]
	if _, ok := ipv4Number(last); !ok {
		allDigits := last != ""
		for i := 0; i < len(last); i++ {
			if last[i] < '0' || last[i] > '9' {
				allDigits = false
			}
		}
		if !allDigits {
			return "", false, false
		}
	}
	if len(parts) > 4 {
		return "", true, false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, ok := ipv4Number(p)
		if !ok {
			return "", true, false
		}
		nums[i] = n
	}
	for _, n := range nums[:len(nums)-1] {
		if n > 255 {
			return "", true, false
		}
	}
	lastN := nums[len(nums)-1]
	if lastN >= 1<<(8*(5-len(nums))) {
		return "", true, false
	}
	v := lastN
	for i, n := range nums[:len(nums)-1] {
		v += n << (8 * (3 - i))
	}
	return fmt.Sprintf("%d.%d.%d.%d", v>>24, v>>16&255, v>>8&255, v&255), true, true
}

func ipv4Number(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	base := 10
	switch {
	case len(s) >= 2 && (s[:2] == "0x" || s[:2] == "0X"):
		s, base = s[2:], 16
		if s == "" {
			return 0, true
		}
	case len(s) >= 2 && s[0] == '0':
		s, base = s[1:], 8
	}
	n, err := strconv.ParseUint(s, base, 64)
	return n, err == nil
}

// ipv6String serializes an IPv6 address as the standard does: lowercase
// hexadecimal groups, the first longest run of two or more zero groups
// compressed.
func ipv6String(a [16]byte) string {
	var g [8]uint16
	for i := range g {
		g[i] = uint16(a[2*i])<<8 | uint16(a[2*i+1])
	}
	best, bestLen := -1, 1
	for i := 0; i < 8; {
		if g[i] != 0 {
			i++
			continue
		}
		j := i
		for j < 8 && g[j] == 0 {
			j++
		}
		if j-i > bestLen {
			best, bestLen = i, j-i
		}
		i = j
	}
	var b strings.Builder
	for i := 0; i < 8; i++ {
		if i == best {
			if i == 0 {
				b.WriteByte(':')
			}
			b.WriteByte(':')
			i += bestLen - 1
			continue
		}
		b.WriteString(strconv.FormatUint(uint64(g[i]), 16))
		if i < 7 {
			b.WriteByte(':')
		}
	}
	return b.String()
}
