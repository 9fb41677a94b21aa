package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// onLoopback checks, by /proc, that the running process pid listens on
// at least one TCP address and on none but 127.0.0.1: every server the
// bench starts must (README, Performance), whatever its own flags and
// log lines say.
func onLoopback(pid int) error {
	addrs, err := listeners(pid)
	if err != nil {
		return err
	}
	if err := loopbackOnly(addrs); err != nil {
		return fmt.Errorf("process %d %v", pid, err)
	}
	return nil
}

// loopbackOnly refuses no address, and any address but 127.0.0.1 (an
// IPv4-mapped one included).
func loopbackOnly(addrs []netip.AddrPort) error {
	if len(addrs) == 0 {
		return errors.New("listens on no TCP address")
	}
	for _, a := range addrs {
		if a.Addr().Unmap() != netip.AddrFrom4([4]byte{127, 0, 0, 1}) {
			return fmt.Errorf("listens on %s, not 127.0.0.1", a)
		}
	}
	return nil
}

// listeners returns the TCP addresses process pid listens on: the LISTEN
// rows of /proc/PID/net/tcp and tcp6 whose socket is one of its open
// files (/proc/PID/fd).
func listeners(pid int) ([]netip.AddrPort, error) {
	proc := filepath.Join("/proc", strconv.Itoa(pid))
	fds, err := os.ReadDir(filepath.Join(proc, "fd"))
	if err != nil {
		return nil, err
	}
	inodes := map[uint64]bool{}
	for _, fd := range fds {
		target, err := os.Readlink(filepath.Join(proc, "fd", fd.Name()))
		if err != nil {
			continue // closed meanwhile
		}
		if ino, ok := strings.CutPrefix(target, "socket:["); ok {
			if n, err := strconv.ParseUint(strings.TrimSuffix(ino, "]"), 10, 64); err == nil {
				inodes[n] = true
			}
		}
	}
	var addrs []netip.AddrPort
	for _, table := range []string{"tcp", "tcp6"} {
		data, err := os.ReadFile(filepath.Join(proc, "net", table))
		if errors.Is(err, os.ErrNotExist) && table == "tcp6" {
			continue // a kernel without IPv6
		}
		if err != nil {
			return nil, err
		}
		as, err := parseListening(data, inodes)
		if err != nil {
			return nil, fmt.Errorf("/proc/%d/net/%s: %v", pid, table, err)
		}
		addrs = append(addrs, as...)
	}
	return addrs, nil
}

// tcpListen is the state of a listening socket in /proc/net/tcp.
const tcpListen = "0A"

// parseListening returns the local addresses of the listening sockets of
// a /proc/net/tcp or tcp6 table (a header line, then one socket a line:
// "sl local_address rem_address st … uid timeout inode …", addresses as
// the kernel prints them: each 32-bit word in hex in the machine's byte
// order, then the port in hex) whose inode is in inodes. A line it cannot
// read is an error: the check fails closed.
func parseListening(table []byte, inodes map[uint64]bool) ([]netip.AddrPort, error) {
	var addrs []netip.AddrPort
	sc := bufio.NewScanner(bytes.NewReader(table))
	for n := 0; sc.Scan(); n++ {
		f := strings.Fields(sc.Text())
		if n == 0 {
			if len(f) < 2 || f[0] != "sl" || f[1] != "local_address" {
				return nil, fmt.Errorf("header %q", sc.Text())
			}
			continue
		}
		if len(f) < 10 {
			return nil, fmt.Errorf("line %d: %d fields", n+1, len(f))
		}
		ino, err := strconv.ParseUint(f[9], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("line %d: inode %q", n+1, f[9])
		}
		if f[3] != tcpListen || !inodes[ino] {
			continue
		}
		a, err := procAddr(f[1])
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", n+1, err)
		}
		addrs = append(addrs, a)
	}
	return addrs, sc.Err()
}

// procAddr decodes an address of /proc/net/tcp ("0100007F:1F90" is
// 127.0.0.1:8080 on a little-endian machine) or tcp6.
func procAddr(s string) (netip.AddrPort, error) {
	h, p, ok := strings.Cut(s, ":")
	port, err := strconv.ParseUint(p, 16, 16)
	if !ok || err != nil || len(p) != 4 || (len(h) != 8 && len(h) != 32) {
		return netip.AddrPort{}, fmt.Errorf("address %q", s)
	}
	raw, err := hex.DecodeString(h)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("address %q", s)
	}
	// Each 32-bit word was printed as a number of the machine's order.
	ip := make([]byte, len(raw))
	for i := 0; i < len(raw); i += 4 {
		binary.NativeEndian.PutUint32(ip[i:], binary.BigEndian.Uint32(raw[i:]))
	}
	a, _ := netip.AddrFromSlice(ip)
	return netip.AddrPortFrom(a, uint16(port)), nil
}
