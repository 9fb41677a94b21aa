package aws

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/tlog/mysql"
)

// MaxConfigSize bounds a configuration file.
const MaxConfigSize = 64 << 10

// Config says where a log on object storage lives: the bucket that holds
// its tiles and checkpoint, and the database that sequences its entries.
// It holds no credentials: the S3 credentials come from the standard AWS
// chain (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE and the
// shared files, or an instance role), and the database's password from an
// env:NAME DSN.
type Config struct {
	// Endpoint is the S3-compatible endpoint's URL (https://HOST[:PORT]);
	// empty: AWS's own endpoint for Region. Plain http is accepted only for
	// a loopback host unless AllowInsecureHTTP.
	Endpoint string `json:"endpoint"`
	// Region is the bucket's region (required; any value the endpoint
	// accepts, "us-east-1" for most S3-compatible servers).
	Region string `json:"region"`
	// Bucket is the bucket's name (S3's rules: 3-63 characters, lowercase
	// letters, digits, dots and hyphens).
	Bucket string `json:"bucket"`
	// PathStyle addresses the bucket as ENDPOINT/BUCKET rather than
	// BUCKET.ENDPOINT (most S3-compatible servers need it).
	PathStyle bool `json:"pathStyle"`
	// AllowInsecureHTTP accepts a plain http Endpoint on a host that is
	// not loopback (credentials and entries then cross the network in
	// clear: only on a network that is already trusted).
	AllowInsecureHTTP bool `json:"allowInsecureHTTP"`
	// Database is the MySQL-compatible database's DSN
	// (go-sql-driver/mysql's format, with a database name), or env:NAME.
	Database string `json:"database"`
}

// ParseConfig reads a configuration document strictly (canonjson's
// reader: no duplicate or unknown members, so that a credential put in
// it is refused rather than ignored) and validates it.
func ParseConfig(data []byte) (*Config, error) {
	if len(data) > MaxConfigSize {
		return nil, fmt.Errorf("s3 config: %d bytes, more than %d", len(data), MaxConfigSize)
	}
	v, err := canonjson.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("s3 config: %w", err)
	}
	if v.Kind == canonjson.Object {
		for _, m := range v.Members {
			switch strings.ToLower(m.Key) {
			case "accesskey", "accesskeyid", "secretkey", "secretaccesskey", "sessiontoken", "password", "credentials":
				return nil, fmt.Errorf("s3 config: member %q: credentials are never in the configuration: give them in the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY) or the AWS credential chain", m.Key)
			}
		}
	}
	var c Config
	if err := canonjson.Unmarshal(v, &c); err != nil {
		return nil, fmt.Errorf("s3 config: %w", err)
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// ReadConfig reads and parses the configuration file path.
func ReadConfig(path string) (*Config, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("s3 config: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("s3 config %s: not a regular file", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("s3 config: %w", err)
	}
	c, err := ParseConfig(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// Validate checks the bucket name, the region, the endpoint and the
// database DSN's syntax (an env:NAME DSN is resolved at Open).
func (c *Config) Validate() error {
	if err := ValidateBucket(c.Bucket); err != nil {
		return err
	}
	if c.Region == "" || len(c.Region) > 64 || strings.Trim(c.Region, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
		return fmt.Errorf("s3 config: region %q: give the bucket's region (lowercase letters, digits and hyphens; \"us-east-1\" for most S3-compatible servers)", c.Region)
	}
	if c.Endpoint != "" {
		if err := validateEndpoint(c.Endpoint, c.AllowInsecureHTTP); err != nil {
			return err
		}
	}
	if c.Database == "" {
		return fmt.Errorf("s3 config: database: give the MySQL-compatible database that sequences the log (a DSN, or env:NAME)")
	}
	if !strings.HasPrefix(c.Database, mysql.DSNEnvPrefix) {
		if err := checkDSN(c.Database); err != nil {
			return fmt.Errorf("s3 config: database: %w", err)
		}
	}
	return nil
}

// ValidateBucket checks name against S3's bucket naming rules.
func ValidateBucket(name string) error {
	bad := func(why string) error { return fmt.Errorf("s3 config: bucket %q: %s", name, why) }
	if len(name) < 3 || len(name) > 63 {
		return bad("a bucket name has 3 to 63 characters")
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '-') {
			return bad("a bucket name has only lowercase letters, digits, dots and hyphens")
		}
	}
	first, last := name[0], name[len(name)-1]
	if first == '.' || first == '-' || last == '.' || last == '-' {
		return bad("a bucket name starts and ends with a letter or a digit")
	}
	if strings.Contains(name, "..") || strings.Contains(name, ".-") || strings.Contains(name, "-.") {
		return bad("a bucket name has no two adjacent dots, nor a dot beside a hyphen")
	}
	if net.ParseIP(name) != nil {
		return bad("a bucket name is not an IP address")
	}
	if strings.HasPrefix(name, "xn--") || strings.HasSuffix(name, "-s3alias") || strings.HasSuffix(name, "--ol-s3") {
		return bad("the prefix xn-- and the suffixes -s3alias and --ol-s3 are reserved")
	}
	return nil
}

// validateEndpoint accepts https://HOST[:PORT][/], and http:// on a
// loopback host, or on any host with allowHTTP; never credentials, a
// query or a fragment.
func validateEndpoint(endpoint string, allowHTTP bool) error {
	u, err := url.Parse(endpoint)
	if err != nil {
		return fmt.Errorf("s3 config: endpoint: not a URL")
	}
	shown := *u
	shown.User = nil // never repeat credentials
	bad := func(why string) error { return fmt.Errorf("s3 config: endpoint %q: %s", shown.String(), why) }
	if u.User != nil {
		return bad("credentials are never in the endpoint: give them in the environment or the AWS credential chain")
	}
	if u.Host == "" || u.Opaque != "" || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || (u.Path != "" && u.Path != "/") {
		return bad("give https://HOST[:PORT], with no path, query or fragment")
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !allowHTTP && !loopback(u.Hostname()) {
			return bad("plain http only to a loopback host (127.0.0.1, ::1, localhost); set allowInsecureHTTP to send credentials and entries in clear to another host")
		}
	default:
		return bad("the scheme is https (or http on loopback)")
	}
	return nil
}

// loopback reports whether host is a loopback address or localhost.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// checkDSN checks a DSN's syntax and that it names a database (Tessera's
// tables and mcpres's are created in it).
func checkDSN(dsn string) error {
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		return err
	}
	if cfg.DBName == "" {
		return fmt.Errorf("the DSN names no database (user:password@tcp(HOST:PORT)/DBNAME)")
	}
	return nil
}
