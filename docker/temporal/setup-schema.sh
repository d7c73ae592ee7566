#!/bin/sh
# Creates Temporal's two PostgreSQL databases on first start and applies every schema version;
# on later starts only the update runs (it skips versions already applied).
set -eu
tool() { temporal-sql-tool --plugin postgres12 --ep postgresql -p 5432 -u temporal "$@"; }
for db in temporal temporal_visibility; do
  case $db in
    temporal) schema=temporal ;;
    *) schema=visibility ;;
  esac
  if tool --db "$db" create; then
    tool --db "$db" setup-schema -v 0.0
  else
    echo "database $db exists: updating its schema only"
  fi
  tool --db "$db" update-schema -d "/etc/temporal/schema/postgresql/v12/$schema/versioned"
done
echo "Temporal schemas are up to date"
