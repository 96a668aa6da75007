// loadgen: a closed-loop HTTP/1.1 load generator for large responses, the client of bench/delivery.
//
// It works as wrk does (N keep-alive connections, each sending its next request when the previous
// response has fully arrived; latency from the request's write to the response's last byte), with
// one difference that matters for 2 MB video segments on loopback: it reads up to 256 KiB per read
// call. wrk reads 8 KiB at a time and asks FIONREAD before each read, so a 2 MB segment costs it
// about 550 system calls; at 1,700 segments a second that saturates its core before either server
// under test does. Here a segment costs about 30 reads.
//
// Usage: loadgen -c 32 -d 4s [-timeout 10s] [-paths FILE] http://host:port/path
// With -paths, every request takes the next path of the file (one per line) in turn, shared by
// all connections, as bench/delivery's wrk script does. Prints one JSON object on stdout.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/url"
	"os"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

const readSize = 256 * 1024

type result struct {
	Requests          int     `json:"requests"`
	Seconds           float64 `json:"seconds"`
	RequestsPerSecond float64 `json:"requestsPerSecond"`
	P50Ms             float64 `json:"p50Ms"`
	P99Ms             float64 `json:"p99Ms"`
	MaxMs             float64 `json:"maxMs"`
	// Responses whose status was not 2xx or 3xx, and requests given up on after the timeout.
	Non2xx   int `json:"non2xx"`
	Timeouts int `json:"timeouts"`
	// Body bytes received: the caller checks them against the files' sizes.
	BodyBytes int64 `json:"bodyBytes"`
}

type connStats struct {
	latencies []time.Duration
	non2xx    int
	timeouts  int
	bodyBytes int64
}

var errStopped = errors.New("stopped")

func main() {
	connections := flag.Int("c", 8, "connections")
	duration := flag.Duration("d", 4*time.Second, "how long to send requests")
	timeout := flag.Duration("timeout", 10*time.Second, "give up on a response after this long")
	pathsFile := flag.String("paths", "", "a file of paths, one per line, requested in turn")
	flag.Parse()
	if flag.NArg() != 1 {
		fail(errors.New("usage: loadgen -c N -d 4s [-timeout 10s] [-paths FILE] URL"))
	}
	target, err := url.Parse(flag.Arg(0))
	if err != nil || target.Scheme != "http" {
		fail(fmt.Errorf("want an http:// URL, got %q", flag.Arg(0)))
	}
	requests := [][]byte{request(target.Host, target.RequestURI())}
	if *pathsFile != "" {
		requests = nil
		file, err := os.Open(*pathsFile)
		if err != nil {
			fail(err)
		}
		lines := bufio.NewScanner(file)
		lines.Buffer(make([]byte, 64*1024), 1024*1024)
		for lines.Scan() {
			if line := lines.Text(); line != "" {
				requests = append(requests, request(target.Host, line))
			}
		}
		if len(requests) == 0 {
			fail(fmt.Errorf("%s has no paths", *pathsFile))
		}
	}

	var next atomic.Uint64
	start := time.Now()
	end := start.Add(*duration)
	stats := make([]connStats, *connections)
	errs := make(chan error, *connections)
	var wg sync.WaitGroup
	for i := range stats {
		wg.Add(1)
		go func(s *connStats) {
			defer wg.Done()
			if err := drive(target.Host, requests, &next, end, *timeout, s); err != nil {
				errs <- err
			}
		}(&stats[i])
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		fail(err)
	}

	var all []time.Duration
	out := result{Seconds: duration.Seconds()}
	for _, s := range stats {
		all = append(all, s.latencies...)
		out.Non2xx += s.non2xx
		out.Timeouts += s.timeouts
		out.BodyBytes += s.bodyBytes
	}
	if len(all) == 0 {
		fail(errors.New("no response completed"))
	}
	sort.Slice(all, func(a, b int) bool { return all[a] < all[b] })
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	// The nearest-rank percentile: the smallest latency with at least p of all at or below it.
	percentile := func(p float64) float64 {
		rank := int(p*float64(len(all))+0.999999) - 1
		if rank < 0 {
			rank = 0
		}
		return ms(all[rank])
	}
	out.Requests = len(all)
	out.RequestsPerSecond = float64(len(all)) / duration.Seconds()
	out.P50Ms, out.P99Ms, out.MaxMs = percentile(0.50), percentile(0.99), ms(all[len(all)-1])
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fail(err)
	}
}

func request(host, path string) []byte {
	return []byte("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n")
}

// drive runs one connection until `end`: a response still arriving at `end` is not counted, as in wrk.
func drive(host string, requests [][]byte, next *atomic.Uint64, end time.Time, timeout time.Duration, s *connStats) error {
	buf := make([]byte, readSize)
	var conn net.Conn
	defer func() {
		if conn != nil {
			conn.Close()
		}
	}()
	for time.Now().Before(end) {
		if conn == nil {
			var err error
			if conn, err = net.DialTimeout("tcp", host, timeout); err != nil {
				return err
			}
		}
		sent := time.Now()
		deadline := sent.Add(timeout)
		conn.SetDeadline(minTime(deadline, end))
		status, body, keepAlive, err := exchange(conn, requests[(next.Add(1)-1)%uint64(len(requests))], buf)
		if err != nil {
			var netErr net.Error
			if errors.As(err, &netErr) && netErr.Timeout() {
				if !time.Now().Before(end) {
					return nil
				}
				s.timeouts++
				conn.Close()
				conn = nil
				continue
			}
			return err
		}
		s.latencies = append(s.latencies, time.Since(sent))
		s.bodyBytes += body
		if status < 200 || status >= 400 {
			s.non2xx++
		}
		if !keepAlive {
			conn.Close()
			conn = nil
		}
	}
	return nil
}

// exchange writes one request and reads its response whole: status, body length, keep-alive.
func exchange(conn net.Conn, req []byte, buf []byte) (int, int64, bool, error) {
	if _, err := conn.Write(req); err != nil {
		return 0, 0, false, err
	}
	n := 0
	headerEnd := -1
	for headerEnd < 0 {
		if n == len(buf) {
			return 0, 0, false, errors.New("response header larger than the read buffer")
		}
		m, err := conn.Read(buf[n:])
		if err != nil {
			return 0, 0, false, err
		}
		n += m
		headerEnd = bytes.Index(buf[:n], []byte("\r\n\r\n"))
	}
	status, length, keepAlive, err := parseHeader(buf[:headerEnd])
	if err != nil {
		return 0, 0, false, err
	}
	remaining := length - int64(n-headerEnd-4)
	if remaining < 0 {
		return 0, 0, false, errors.New("more bytes than Content-Length (pipelining is not used)")
	}
	for remaining > 0 {
		m, err := conn.Read(buf)
		if err != nil {
			return 0, 0, false, err
		}
		remaining -= int64(m)
	}
	if remaining < 0 {
		return 0, 0, false, errors.New("more bytes than Content-Length (pipelining is not used)")
	}
	return status, length, keepAlive, nil
}

// parseHeader reads the status code, Content-Length (required: the servers under test send it)
// and whether the connection stays open.
func parseHeader(header []byte) (int, int64, bool, error) {
	lines := bytes.Split(header, []byte("\r\n"))
	statusLine := bytes.SplitN(lines[0], []byte(" "), 3)
	if len(statusLine) < 2 || !bytes.HasPrefix(statusLine[0], []byte("HTTP/1.")) {
		return 0, 0, false, fmt.Errorf("not an HTTP/1 status line: %q", lines[0])
	}
	status, err := strconv.Atoi(string(statusLine[1]))
	if err != nil {
		return 0, 0, false, fmt.Errorf("bad status line %q", lines[0])
	}
	length := int64(-1)
	keepAlive := bytes.Equal(statusLine[0], []byte("HTTP/1.1"))
	for _, line := range lines[1:] {
		name, value, found := bytes.Cut(line, []byte(":"))
		if !found {
			continue
		}
		value = bytes.TrimSpace(value)
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			if length, err = strconv.ParseInt(string(value), 10, 64); err != nil {
				return 0, 0, false, fmt.Errorf("bad Content-Length %q", value)
			}
		case bytes.EqualFold(name, []byte("Connection")):
			keepAlive = !bytes.EqualFold(value, []byte("close"))
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			return 0, 0, false, errors.New("chunked responses are not supported: the servers under test send Content-Length")
		}
	}
	if length < 0 {
		return 0, 0, false, fmt.Errorf("status %d without Content-Length", status)
	}
	return status, length, keepAlive, nil
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "loadgen:", err)
	os.Exit(1)
}
