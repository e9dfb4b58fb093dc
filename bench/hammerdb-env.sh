# Sourced by the HammerDB benchmarks (bench/vs-hammerdb.sh,
# bench/tpch-load.sh): makes HammerDB v4.12 at $HAMMERDB start with
# Debian's Tcl packages, in a private copy under $tmp, and defines
# hdb SCRIPT, which runs a hammerdbcli script with fresh settings.
# Needs tclsh8.6, tcl-thread, libsqlite3-tcl, libpgtcl and mysqltcl.
# The stand-ins, on TCLLIBPATH (HammerDB's virtual users are threads that
# find packages on auto_path).
mkdir -p "$tmp/tcl/pgtclshim" "$tmp/tcl/ticklecharts"
cat >"$tmp/tcl/pgtclshim/pkgIndex.tcl" <<'EOF'
package ifneeded pgtclshim 1.0 {
    package require Pgtcl
    if {[info commands ::pg_notice_handler] eq ""} {
        proc ::pg_notice_handler {args} {}
    }
    if {[info commands ::pg_exec_prepared_ng] eq ""} {
        rename ::pg_exec_prepared ::pg_exec_prepared_ng
        proc ::pg_exec_prepared {conn name rfmt afmt args} {
            ::pg_exec_prepared_ng $conn $name {*}$args
        }
    }
    package provide pgtclshim 1.0
}
EOF
echo 'package ifneeded ticklecharts 3.0 {package provide ticklecharts 3.0}' >"$tmp/tcl/ticklecharts/pkgIndex.tcl"
export TCLLIBPATH="$tmp/tcl"

# A private copy of HammerDB whose PostgreSQL library is the shim; its job
# and settings databases go to the temporary directory (fresh settings for
# every call).
cp -r "$HAMMERDB" "$tmp/hdb"
mkdir -p "$tmp/hdb/bin"
ln -sf "$(command -v tclsh8.6)" "$tmp/hdb/bin/tclsh8.6"
sed -i 's|<library>Pgtcl</library>|<library>pgtclshim</library>|' "$tmp/hdb/config/database.xml"
export TMP="$tmp" # HammerDB keeps its job and settings databases there
# hdb SCRIPT runs a hammerdbcli script in the private copy.
hdb() { (cd "$tmp/hdb" && rm -f "$tmp"/*.db "$tmp"/*.DB && ./hammerdbcli auto "$1"); }
