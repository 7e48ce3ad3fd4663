//! RabbitMQ queue (lapin). To be written.
