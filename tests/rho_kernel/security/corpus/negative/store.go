package store

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
)

// Config holds connection settings; Password is read from the environment.
type Config struct {
	User     string `json:"user"`
	Password string `json:"password"`
	Token    string `json:"token,omitempty"`
	APIKey   string `json:"api_key"`
}

const commitHash = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

func Load() Config {
	token := os.Getenv("TOKEN")
	password := os.Getenv("PASSWORD")
	apiKey := os.Getenv("API_KEY")
	return Config{User: "app", Password: password, Token: token, APIKey: apiKey}
}

func HashPassword(password string) string {
	sum := sha256.Sum256([]byte(password))
	return hex.EncodeToString(sum[:])
}

func (c *Config) Valid() bool {
	if c.Password == "" || c.Token != "" {
		return false
	}
	token_count := len(c.Token)
	return token_count == 0
}
