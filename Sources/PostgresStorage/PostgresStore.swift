#if PostgreSQL
import PostgresNIO
#endif
