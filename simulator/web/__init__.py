"""The Flask application: the factory with its routes and error renderer (app.py), and CORS (cors.py)."""
