package mysql

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/evidence"
)

// ServerProcess implements evidence.ServerProcessFinder: the server's one
// process (its threads serve the connections), whose PID the server
// writes to its pid file.
func (d *myDB) ServerProcess(ctx context.Context) (evidence.ServerProcess, error) {
	c, err := d.Connect(ctx)
	if err != nil {
		return evidence.ServerProcess{}, err
	}
	defer c.Close()
	var file string
	if _, err := db.QueryRow(ctx, c, "SELECT @@pid_file", nil, &file); err != nil {
		return evidence.ServerProcess{}, fmt.Errorf("read the server's pid file name: %w", err)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return evidence.ServerProcess{}, fmt.Errorf("the server's pid file %s cannot be read on this host: %v", file, err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return evidence.ServerProcess{}, fmt.Errorf("the server's pid file %s holds no PID", file)
	}
	return evidence.ServerProcess{PID: pid, Names: []string{"mariadbd", "mysqld"}, What: "server process"}, nil
}
