-- The image created the account pointsman from MYSQL_USER/MYSQL_PASSWORD with rights on no database.
-- pointsman manages _vt (vreplication, journals, its fence), denies writes with triggers and drops
-- moved tables, on every database of the primary: the rights of a Vitess tablet's DBA account.
GRANT ALL PRIVILEGES ON *.* TO 'pointsman'@'%' WITH GRANT OPTION;
FLUSH PRIVILEGES;
