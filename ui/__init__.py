"""Streamlit-side wiring of the dashboard (sidebar, caching, error display, downloads); pages stay thin."""
