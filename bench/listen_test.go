package main

import (
	"encoding/binary"
	"net"
	"net/netip"
	"os"
	"slices"
	"strings"
	"testing"
)

// procTCP is a /proc/net/tcp table as a little-endian Linux prints it:
// this process's listener on 127.0.0.1:8080 (inode 101), its listener on
// every address (102), a connection of its own (103), and another
// process's listener on every address (999).
const procTCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 101 1 000000003eabc3a6 100 0 0 10 0
   1: 00000000:0050 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 102 1 000000003eabc3a6 100 0 0 10 0
   2: 0100007F:A9AD 0100007F:1F90 01 00000000:00000000 00:00000000 00000000     0        0 103 1 000000003eabc3a6 100 0 0 10 0
   3: 00000000:07E8 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 999 1 00000000f1285d97 100 0 0 10 0
`

// procTCP6: ::1:443 (201), ::ffff:127.0.0.1:8443 (202), :: (203).
const procTCP6 = `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000001000000:01BB 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 201 1 0000000000000000 100 0 0 10 0
   1: 0000000000000000FFFF00000100007F:20FB 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 202 1 0000000000000000 100 0 0 10 0
   2: 00000000000000000000000000000000:0016 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 203 1 0000000000000000 100 0 0 10 0
`

func littleEndian(t *testing.T) {
	if binary.NativeEndian.Uint16([]byte{1, 0}) != 1 {
		t.Skip("the tables are those of a little-endian machine")
	}
}

// TestParseListening: the listening sockets of the process (by inode),
// not its connections nor another process's listeners; the addresses as
// the kernel encodes them.
func TestParseListening(t *testing.T) {
	littleEndian(t)
	got, err := parseListening([]byte(procTCP), map[uint64]bool{101: true, 102: true, 103: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := []netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:8080"), netip.MustParseAddrPort("0.0.0.0:80")}; !slices.Equal(got, want) {
		t.Fatalf("%v, want %v", got, want)
	}
	got, err = parseListening([]byte(procTCP6), map[uint64]bool{201: true, 202: true, 203: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := []netip.AddrPort{netip.MustParseAddrPort("[::1]:443"), netip.MustParseAddrPort("[::ffff:127.0.0.1]:8443"), netip.MustParseAddrPort("[::]:22")}; !slices.Equal(got, want) {
		t.Fatalf("%v, want %v", got, want)
	}
	// Control: no socket of the process's, no address.
	if got, err := parseListening([]byte(procTCP), map[uint64]bool{5: true}); err != nil || len(got) != 0 {
		t.Fatalf("%v %v", got, err)
	}
}

// TestParseListeningRefuses: a table the check cannot read fails it.
func TestParseListeningRefuses(t *testing.T) {
	own := map[uint64]bool{101: true}
	lines := strings.SplitAfter(procTCP, "\n")
	for name, table := range map[string]string{
		"no header":       strings.Join(lines[1:], ""),
		"another header":  "  id  address\n" + strings.Join(lines[1:], ""),
		"a short line":    lines[0] + "   0: 0100007F:1F90 00000000:0000 0A\n",
		"an inode":        lines[0] + strings.Replace(lines[1], " 101 ", " 10x ", 1),
		"an address":      lines[0] + strings.Replace(lines[1], "0100007F:1F90", "0100007G:1F90", 1),
		"a port":          lines[0] + strings.Replace(lines[1], "0100007F:1F90", "0100007F:1F9", 1),
		"an address size": lines[0] + strings.Replace(lines[1], "0100007F:1F90", "00007F:1F90", 1),
		"no port":         lines[0] + strings.Replace(lines[1], "0100007F:1F90", "0100007F", 1),
	} {
		if got, err := parseListening([]byte(table), own); err == nil {
			t.Errorf("%s: taken: %v", name, got)
		}
	}
}

// TestLoopbackOnly: a server is taken when it listens on 127.0.0.1
// only; on no address, on every address, on ::1 or on another loopback
// address it is refused, saying which.
func TestLoopbackOnly(t *testing.T) {
	ok := [][]string{{"127.0.0.1:8080"}, {"127.0.0.1:1", "[::ffff:127.0.0.1]:2"}}
	for _, as := range ok {
		if err := loopbackOnly(addrPorts(as)); err != nil {
			t.Errorf("%v: %v", as, err)
		}
	}
	for _, c := range []struct {
		addrs []string
		want  string
	}{
		{nil, "no TCP address"},
		{[]string{"127.0.0.1:1", "0.0.0.0:2"}, "0.0.0.0:2, not 127.0.0.1"},
		{[]string{"[::]:2"}, "[::]:2, not"},
		{[]string{"[::1]:2"}, "[::1]:2, not"},
		{[]string{"127.0.0.2:2"}, "127.0.0.2:2, not"},
	} {
		if err := loopbackOnly(addrPorts(c.addrs)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.addrs, err, c.want)
		}
	}
}

func addrPorts(ss []string) []netip.AddrPort {
	var as []netip.AddrPort
	for _, s := range ss {
		as = append(as, netip.MustParseAddrPort(s))
	}
	return as
}

// TestListenersOfThisProcess: /proc read for real: this process's
// listener on 127.0.0.1 is found and taken; once closed it is not found.
func TestListenersOfThisProcess(t *testing.T) {
	if _, err := os.Stat("/proc/self/net/tcp"); err != nil {
		t.Skip("no /proc/self/net/tcp:", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().(*net.TCPAddr).AddrPort()
	got, err := listeners(os.Getpid())
	if err != nil || !slices.Contains(got, addr) {
		t.Fatalf("listeners = %v, %v; want %v among them", got, err, addr)
	}
	if err := onLoopback(os.Getpid()); err != nil {
		t.Fatal(err)
	}
	ln.Close()
	if got, err := listeners(os.Getpid()); err != nil || slices.Contains(got, addr) {
		t.Fatalf("after close: %v, %v", got, err)
	}
	if err := onLoopback(os.Getpid()); err == nil || !strings.Contains(err.Error(), "no TCP address") {
		t.Fatalf("no listener: %v", err)
	}
	if _, err := listeners(-1); err == nil {
		t.Fatal("a process that does not exist: no error")
	}
}

// FuzzParseListening: any table is read or refused, never a panic, and
// every address taken is a listening socket's of the inodes given.
func FuzzParseListening(f *testing.F) {
	f.Add([]byte(procTCP))
	f.Add([]byte(procTCP6))
	f.Add([]byte("  sl  local_address\n 0: 0100007F:1F90 0 0A 0 0 0 0 0 101\n"))
	f.Fuzz(func(t *testing.T, table []byte) {
		got, err := parseListening(table, map[uint64]bool{101: true, 201: true})
		if err != nil && got != nil {
			t.Fatalf("%v with an error", got)
		}
		if len(got) > strings.Count(string(table), "\n")+1 {
			t.Fatalf("%d addresses from %q", len(got), table)
		}
	})
}
