"""The textual side of the views: app, screens and widgets. Imported only when a view runs."""
